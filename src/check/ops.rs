//! `op-shapes` of another program's log, judged again: each step of a
//! known torch op that lists its `operands` (and `args` where the shape
//! needs them) gets the shape that op must give, which the recorded
//! `shape` must be. A log whose step was edited, or whose writer recorded
//! a shape the op cannot give, fails naming the step, its line, the op,
//! its operands and what they give.
//!
//! ```text
//! linear (2,4,64),(256,64),(256)      → (2,4,256)   torch's weight is (out, in)
//! matmul (2,4,4,16),(2,4,16,4)        → (2,4,4,4)   batch axes broadcast
//! view (2,4,64) {"shape":[2,4,4,-1]}  → (2,4,4,16)
//! einsum "bhtd,bhsd->bhts"            → (b,h,t,s)
//! ```
//!
//! An op not listed here is not judged.

use super::{CheckName, CheckResult};
use crate::ops::Op;
use crate::shape::fmt_shape;
use crate::trace::{Event, Trace};
use crate::why::Why;
use serde_json::Value;

/// The first step of `trace` whose recorded shape is not the one its op
/// gives its operands (or whose operands its op refuses), as a failure of
/// `op-shapes`; `None` when every judged step holds.
#[must_use]
pub fn op_shapes(trace: &Trace) -> Option<CheckResult> {
    trace.events.iter().find_map(|e| {
        let got = judge(e)?;
        let operands = e
            .operands
            .iter()
            .flatten()
            .map(|o| fmt_shape(o))
            .collect::<Vec<_>>()
            .join(",");
        let why = match got {
            Ok(want) if want == e.shape => return None,
            Ok(want) => Why::new("check-op-shapes-recorded").arg("want", fmt_shape(&want)),
            Err(error) => Why::new("check-op-shapes-refused").arg("error", error),
        };
        let why = why
            .arg("path", e.path.as_str())
            .arg("line", e.line.as_deref().unwrap_or("none"))
            .arg("op", e.op_label())
            .arg("operands", operands)
            .arg("got", fmt_shape(&e.shape));
        Some(CheckResult::fail(CheckName::OpShapes, &e.path, "").said(why))
    })
}

/// The shape event `e`'s op gives its operands, or why it refuses them;
/// `None` when the op is not judged (unknown, no operands, a residual
/// add, which `residual` judges, or arguments it lacks).
#[must_use]
pub fn judge(e: &Event) -> Option<Result<Vec<usize>, String>> {
    let ins = e.operands.as_deref().filter(|o| !o.is_empty())?;
    if e.is_residual() {
        return None;
    }
    let args = e.args.as_ref();
    let arg = |k: &str| args.and_then(|a| a.get(k));
    let op = e.op_label().trim_end_matches('_').to_ascii_lowercase();
    let x = ins[0].as_slice();
    Some(match op.as_str() {
        "linear" => linear(ins),
        "matmul" => matmul(ins),
        "bmm" => bmm(ins),
        "softmax" | "log_softmax" => {
            dim_in(arg("dim"), x.len()).map_or_else(|| Ok(x.to_vec()), |d| d.map(|_| x.to_vec()))
        }
        "layernorm" | "layer_norm" | "rmsnorm" | "rms_norm" | "group_norm" | "batch_norm"
        | "instance_norm" | "gelu" | "relu" | "silu" | "tanh" | "sigmoid" | "dropout" | "neg"
        | "exp" | "contiguous" | "clone" | "float" | "to" | "type_as" | "half" | "bfloat16"
        | "double" | "detach" | "sqrt" | "rsqrt" | "abs" | "gelu_tanh" | "softplus" | "mish"
        | "elu" | "leaky_relu" | "scale" | "cast" => Ok(x.to_vec()),
        "add" | "sub" | "mul" | "div" | "truediv" | "masked_fill" | "where" | "pow" | "maximum"
        | "minimum" | "rsub" => broadcast(ins),
        "view" | "reshape" => reshape(x, arg("shape"), &e.shape)?,
        "transpose" | "swapaxes" => transpose(x, arg("dims")?),
        "permute" => permute(x, arg("dims")?),
        "einsum" => einsum(arg("equation")?.as_str()?, ins)?,
        "embedding" => {
            let w = ins.get(1)?;
            let mut out = x.to_vec();
            out.push(*w.last()?);
            Ok(out)
        }
        "cat" | "concat" | "concatenate" => cat(ins, arg("dim"))?,
        _ => return None,
    })
}

/// Axis `d` of a tensor of `rank` axes, negatives from the end; `None`
/// when not given, `Some(Err)` when out of range.
fn dim_in(d: Option<&Value>, rank: usize) -> Option<Result<usize, String>> {
    let d = d?.as_i64()?;
    let r = i64::try_from(rank).ok()?;
    let i = if d < 0 { d + r } else { d };
    Some(
        usize::try_from(i)
            .ok()
            .filter(|&i| i < rank)
            .ok_or_else(|| format!("dim {d} is out of range for {rank} axes")),
    )
}

/// torch's `F.linear(x, W, b)`: W is (out, in), the transpose of the
/// model's (in, out), so the model's own rule judges it transposed.
fn linear(ins: &[Vec<usize>]) -> Result<Vec<usize>, String> {
    let x = ins[0].as_slice();
    let w: Vec<usize> = match ins.get(1).map(Vec::as_slice) {
        Some([out, inp]) => vec![*inp, *out],
        Some(w) => return Err(format!("weight {} must have rank 2", fmt_shape(w))),
        None => return Err("no weight".into()),
    };
    if x.is_empty() {
        return Err("input must have at least 1 axis".into());
    }
    let mut shapes: Vec<&[usize]> = vec![x, &w];
    shapes.extend(ins.get(2).map(Vec::as_slice));
    Op::Linear.infer(&shapes).map_err(|e| e.0)
}

/// Broadcasts shapes torch's way: aligned from the last axis, each pair
/// equal or one of them 1.
fn broadcast_all<'a>(shapes: impl IntoIterator<Item = &'a [usize]>) -> Result<Vec<usize>, String> {
    let mut out: Vec<usize> = Vec::new();
    for s in shapes {
        let n = out.len().max(s.len());
        let mut next = vec![1; n];
        for (i, slot) in next.iter_mut().enumerate() {
            let a = (i + out.len()).checked_sub(n).map_or(1, |j| out[j]);
            let b = (i + s.len()).checked_sub(n).map_or(1, |j| s[j]);
            *slot = match (a, b) {
                (a, b) if a == b => a,
                (1, b) => b,
                (a, 1) => a,
                _ => {
                    return Err(format!(
                        "{} and {} do not broadcast",
                        fmt_shape(&out),
                        fmt_shape(s)
                    ));
                }
            };
        }
        out = next;
    }
    Ok(out)
}

fn broadcast(ins: &[Vec<usize>]) -> Result<Vec<usize>, String> {
    broadcast_all(ins.iter().map(Vec::as_slice))
}

/// `a @ b`: 1-axis operands gain (and lose) an axis, the batch axes
/// broadcast, a's last axis meets b's second to last.
fn matmul(ins: &[Vec<usize>]) -> Result<Vec<usize>, String> {
    let (Some(a), Some(b)) = (ins.first(), ins.get(1)) else {
        return Err("a matrix product needs two operands".into());
    };
    if a.is_empty() || b.is_empty() {
        return Err("a matrix product needs operands of at least 1 axis".into());
    }
    let a2: Vec<usize> = if a.len() == 1 {
        vec![1, a[0]]
    } else {
        a.clone()
    };
    let b2: Vec<usize> = if b.len() == 1 {
        vec![b[0], 1]
    } else {
        b.clone()
    };
    let (ra, rb) = (a2.len(), b2.len());
    if a2[ra - 1] != b2[rb - 2] {
        return Err(format!(
            "{} @ {} needs a's last axis = b's second to last",
            fmt_shape(a),
            fmt_shape(b)
        ));
    }
    let mut out = broadcast_all([&a2[..ra - 2], &b2[..rb - 2]])?;
    if a.len() > 1 {
        out.push(a2[ra - 2]);
    }
    if b.len() > 1 {
        out.push(b2[rb - 1]);
    }
    Ok(out)
}

/// `torch.bmm`: (n, i, k) @ (n, k, j) → (n, i, j), no broadcasting.
fn bmm(ins: &[Vec<usize>]) -> Result<Vec<usize>, String> {
    match (
        ins.first().map(Vec::as_slice),
        ins.get(1).map(Vec::as_slice),
    ) {
        (Some(&[n, i, k]), Some(&[m, k2, j])) if n == m && k == k2 => Ok(vec![n, i, j]),
        (Some(a), Some(b)) => Err(format!(
            "bmm needs (n,i,k) and (n,k,j), got {} and {}",
            fmt_shape(a),
            fmt_shape(b)
        )),
        _ => Err("bmm needs two operands".into()),
    }
}

/// `view`/`reshape`: the same number of elements; the shape asked for,
/// its one -1 resolved, when the log gives it, else the recorded one.
fn reshape(
    x: &[usize],
    asked: Option<&Value>,
    got: &[usize],
) -> Option<Result<Vec<usize>, String>> {
    let n: Option<usize> = x.iter().try_fold(1usize, |a, &d| a.checked_mul(d));
    let n = n?;
    let Some(asked) = asked else {
        let m = got.iter().try_fold(1usize, |a, &d| a.checked_mul(d))?;
        return Some(if m == n {
            Ok(got.to_vec())
        } else {
            Err(format!(
                "{} has {n} elements, {} has {m}",
                fmt_shape(x),
                fmt_shape(got)
            ))
        });
    };
    let dims: Vec<i64> = asked
        .as_array()?
        .iter()
        .map(Value::as_i64)
        .collect::<Option<_>>()?;
    let known: Option<usize> = dims
        .iter()
        .filter(|&&d| d != -1)
        .try_fold(1usize, |a, &d| a.checked_mul(usize::try_from(d).ok()?));
    let known = known?;
    let free = dims.iter().filter(|&&d| d == -1).count();
    let shown = || {
        let s: Vec<String> = dims.iter().map(ToString::to_string).collect();
        format!("({})", s.join(","))
    };
    Some(match free {
        0 if known == n => Ok(dims.iter().map(|&d| d.unsigned_abs() as usize).collect()),
        1 if known > 0 && n % known == 0 => Ok(dims
            .iter()
            .map(|&d| {
                if d == -1 {
                    n / known
                } else {
                    d.unsigned_abs() as usize
                }
            })
            .collect()),
        _ => Err(format!(
            "{} ({n} elements) cannot be viewed as {}",
            fmt_shape(x),
            shown()
        )),
    })
}

/// The axes a `dims` argument names, negatives from the end.
fn axes(x: &[usize], dims: &Value) -> Option<Result<Vec<usize>, String>> {
    dims.as_array()?
        .iter()
        .map(|d| dim_in(Some(d), x.len()))
        .collect::<Option<Result<Vec<_>, _>>>()
}

fn transpose(x: &[usize], dims: &Value) -> Result<Vec<usize>, String> {
    match axes(x, dims) {
        Some(Ok(d)) if d.len() == 2 => {
            let mut out = x.to_vec();
            out.swap(d[0], d[1]);
            Ok(out)
        }
        Some(Err(e)) => Err(e),
        _ => Err(format!("transpose needs two dims, got {dims}")),
    }
}

fn permute(x: &[usize], dims: &Value) -> Result<Vec<usize>, String> {
    match axes(x, dims) {
        Some(Ok(d)) => {
            let mut seen = d.clone();
            seen.sort_unstable();
            if seen != (0..x.len()).collect::<Vec<_>>() {
                return Err(format!(
                    "dims {dims} are not a permutation of the {} axes of {}",
                    x.len(),
                    fmt_shape(x)
                ));
            }
            Ok(d.iter().map(|&i| x[i]).collect())
        }
        Some(Err(e)) => Err(e),
        None => Err(format!("permute needs a list of dims, got {dims}")),
    }
}

/// `torch.einsum(equation, *operands)`: each letter one size (or 1,
/// broadcast), the output the letters after `->` (or, without it, those
/// that appear once, in alphabetical order). `None` for an ellipsis.
fn einsum(eq: &str, ins: &[Vec<usize>]) -> Option<Result<Vec<usize>, String>> {
    let eq: String = eq.chars().filter(|c| !c.is_whitespace()).collect();
    if eq.contains("...") {
        return None;
    }
    let (lhs, rhs) = match eq.split_once("->") {
        Some((l, r)) => (l, Some(r)),
        None => (eq.as_str(), None),
    };
    let terms: Vec<&str> = lhs.split(',').collect();
    if terms.len() != ins.len() {
        return Some(Err(format!(
            "{eq} names {} operands, the op got {}",
            terms.len(),
            ins.len()
        )));
    }
    let mut size: std::collections::BTreeMap<char, usize> = std::collections::BTreeMap::new();
    let mut count: std::collections::BTreeMap<char, usize> = std::collections::BTreeMap::new();
    for (t, s) in terms.iter().zip(ins) {
        if t.chars().count() != s.len() {
            return Some(Err(format!(
                "'{t}' names {} axes of {}",
                t.chars().count(),
                fmt_shape(s)
            )));
        }
        for (c, &d) in t.chars().zip(s) {
            *count.entry(c).or_default() += 1;
            match size.get(&c) {
                Some(&had) if had != d && had != 1 && d != 1 => {
                    return Some(Err(format!(
                        "'{c}' is {had} in one operand and {d} in another"
                    )));
                }
                Some(&had) if had != 1 => {}
                _ => {
                    size.insert(c, d);
                }
            }
        }
    }
    let out: Vec<char> = match rhs {
        Some(r) => r.chars().collect(),
        None => count
            .iter()
            .filter(|(_, n)| **n == 1)
            .map(|(c, _)| *c)
            .collect(),
    };
    Some(
        out.iter()
            .map(|c| {
                size.get(c)
                    .copied()
                    .ok_or_else(|| format!("output axis '{c}' is in no operand"))
            })
            .collect(),
    )
}

/// `torch.cat(tensors, dim)`: every other axis equal, `dim` summed.
fn cat(ins: &[Vec<usize>], dim: Option<&Value>) -> Option<Result<Vec<usize>, String>> {
    let x = &ins[0];
    let d = match dim_in(dim, x.len()) {
        None if dim.is_none() => 0,
        None => return None,
        Some(Err(e)) => return Some(Err(e)),
        Some(Ok(d)) => d,
    };
    let mut out = x.clone();
    for s in &ins[1..] {
        let fits = s.len() == x.len()
            && s.iter()
                .zip(x)
                .enumerate()
                .all(|(i, (a, b))| i == d || a == b);
        if !fits {
            return Some(Err(format!(
                "{} and {} differ off dim {d}",
                fmt_shape(x),
                fmt_shape(s)
            )));
        }
        out[d] += s[d];
    }
    Some(Ok(out))
}

#[cfg(test)]
mod tests {
    use super::{einsum, matmul, reshape};
    use serde_json::json;

    #[test]
    fn torch_shape_rules() {
        let m = |a: &[usize], b: &[usize]| matmul(&[a.to_vec(), b.to_vec()]);
        assert_eq!(m(&[2, 4, 4, 16], &[2, 4, 16, 4]), Ok(vec![2, 4, 4, 4]));
        assert_eq!(m(&[2, 1, 4, 16], &[3, 16, 5]), Ok(vec![2, 3, 4, 5]));
        assert_eq!(m(&[16], &[2, 16, 5]), Ok(vec![2, 5]));
        assert!(m(&[2, 4, 8], &[2, 16, 5]).is_err());
        let e = |eq: &str, ins: &[&[usize]]| {
            einsum(eq, &ins.iter().map(|s| s.to_vec()).collect::<Vec<_>>())
        };
        assert_eq!(
            e("bhtd,bhsd->bhts", &[&[2, 4, 4, 16], &[2, 4, 4, 16]]),
            Some(Ok(vec![2, 4, 4, 4]))
        );
        assert_eq!(e("ij,jk", &[&[2, 3], &[3, 5]]), Some(Ok(vec![2, 5])));
        assert!(matches!(e("ij,jk->ik", &[&[2, 3], &[4, 5]]), Some(Err(_))));
        let r = |x: &[usize], s| reshape(x, Some(&s), &[]);
        assert_eq!(
            r(&[2, 4, 64], json!([2, 4, 4, -1])),
            Some(Ok(vec![2, 4, 4, 16]))
        );
        assert!(matches!(r(&[2, 4, 64], json!([2, 4, 5, -1])), Some(Err(_))));
    }
}
