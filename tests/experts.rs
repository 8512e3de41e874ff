//! Expert parallelism (`--ep N`): each device holds E/N of a mixture's
//! experts and B/N of the sequences; every expert gathers its batch from
//! every device by an all-to-all, and its outputs go back by another. The
//! device shapes, the rows that move (the data's), the `shard` check and
//! its fault, the refusals, and the per-device count.

mod common;
use common::{cli, refused_in_one_line};
use shapetrace::check::Status;
use shapetrace::config::{Devices, Fault, preset};
use shapetrace::ops::OpKind;
use shapetrace::{ModelConfig, Trace};

/// lesson-moe (4 experts, top 2) over `ep` devices at batch `batch`,
/// showing device `device`.
fn experts(ep: usize, batch: usize, device: usize) -> ModelConfig {
    ModelConfig {
        batch,
        devices: Devices {
            ep,
            device,
            ..Devices::default()
        },
        ..preset::by_name("lesson-moe").unwrap()
    }
}

fn numeric(cfg: &ModelConfig) -> Trace {
    shapetrace::run(cfg).unwrap().trace
}

fn shape(t: &Trace, path: &str) -> Vec<usize> {
    t.get(path)
        .unwrap_or_else(|| panic!("no {path}"))
        .shape
        .clone()
}

#[test]
fn ep2_gives_each_device_its_sequences_and_experts_with_an_all_to_all_each_way() {
    let one = numeric(&experts(1, 2, 0));
    for device in 0..2 {
        let t = numeric(&experts(2, 2, device));
        assert_eq!(shape(&t, "input"), [2, 4, 64]);
        assert_eq!(shape(&t, "scatter"), [1, 4, 64]);
        assert_eq!(shape(&t, "block1.resid_1"), [1, 4, 64]);
        assert_eq!(shape(&t, "block1.moe.top_k"), [1, 4, 2]);
        // Device k holds experts 2k+1 and 2k+2, and no other.
        let held: Vec<usize> = (2 * device + 1..=2 * device + 2).collect();
        for e in 1..=4 {
            let path = format!("block1.moe.expert{e}.dispatch");
            let Some(ev) = t.get(&path) else {
                assert!(!held.contains(&e), "device {device} lacks {path}");
                continue;
            };
            assert!(held.contains(&e), "device {device} holds {path}");
            assert_eq!(ev.op, OpKind::AllToAll);
            // Its batch gathered from both devices is the one device's.
            assert_eq!(ev.shape, shape(&one, &path), "{path} on device {device}");
        }
        // Every route of the device's b·T·k = 1·4·2 comes back.
        let back = t.get("block1.moe.combine.all_to_all").unwrap();
        assert_eq!(
            (back.op, back.shape.clone()),
            (OpKind::AllToAll, vec![8, 64])
        );
        assert_eq!(shape(&t, "block1.moe.combine"), [1, 4, 64]);
        assert_eq!(shape(&t, "all_gather"), [2, 4, 64]);
        let a2a = |b: &str| {
            t.events
                .iter()
                .filter(|e| e.op == OpKind::AllToAll && e.path.starts_with(b))
                .count()
        };
        // Two experts' dispatches and one return in each block.
        assert_eq!((a2a("block1."), a2a("block2.")), (3, 3));
    }
}

#[test]
fn the_rows_each_device_sends_are_the_datas_and_sum_to_the_experts_batch() {
    // One expert per device: device e holds expert e + 1.
    let one = numeric(&experts(1, 4, 0));
    for device in 0..4 {
        let t = numeric(&experts(4, 4, device));
        let path = format!("block2.moe.expert{}.dispatch", device + 1);
        let ev = t.get(&path).unwrap();
        // The formula names every device's rows: `(rows a+b+c+d)`.
        let rows: Vec<usize> = ev
            .formula
            .split("(rows ")
            .nth(1)
            .and_then(|r| r.split(')').next())
            .unwrap_or_else(|| panic!("{path}: {}", ev.formula))
            .split('+')
            .map(|n| n.parse().unwrap())
            .collect();
        assert_eq!(rows.len(), 4, "{}", ev.formula);
        assert_eq!(rows.iter().sum::<usize>(), ev.shape[0], "{}", ev.formula);
        assert_eq!(ev.shape, shape(&one, &path));
    }
}

#[test]
fn a_shape_only_run_records_each_experts_batch_by_its_bound() {
    let req = shapetrace::Request {
        mode: shapetrace::ModeChoice::ShapeOnly,
        ..shapetrace::Request::default()
    };
    let t = shapetrace::trace_request(&experts(2, 2, 1), &req)
        .unwrap()
        .trace;
    let ev = t.get("block1.moe.expert3.dispatch").unwrap();
    // B·T = 8 tokens over both devices, each choosing expert 3 at most once.
    assert_eq!(ev.shape, [8, 64]);
    assert!(ev.axes[0].is_bound(), "{:?}", ev.axes);
    assert_eq!(shape(&t, "block1.moe.combine.all_to_all"), [8, 64]);
}

#[test]
fn shard_passes_under_ep_and_a_return_out_of_order_fails_it_alone() {
    for (ep, batch) in [(2, 2), (2, 4), (4, 4)] {
        let checks = shapetrace::run(&experts(ep, batch, 0)).unwrap().checks;
        for c in &checks {
            assert_eq!(c.status, Status::Pass, "ep {ep} batch {batch}: {c:?}");
        }
        let shard = checks
            .iter()
            .find(|c| c.name == shapetrace::CheckName::Shard)
            .unwrap();
        assert_eq!(shard.status, Status::Pass);
    }
    for (ep, batch, device) in [(2, 2, 0), (2, 2, 1), (4, 4, 2)] {
        let cfg = ModelConfig {
            fault: Some(Fault::EpReturnOrder),
            ..experts(ep, batch, device)
        };
        let checks = shapetrace::run(&cfg).unwrap().checks;
        let failed: Vec<(String, Option<String>)> = checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .map(|c| (c.name.to_string(), c.path.clone()))
            .collect();
        assert_eq!(
            failed,
            [("shard".to_string(), Some("block1.resid_2".to_string()))],
            "ep {ep} device {device}: {checks:?}"
        );
    }
}

#[test]
fn an_expert_split_that_cannot_be_made_is_one_line() {
    let moe = ["trace", "--preset", "lesson-moe"];
    let with = |more: &[&'static str]| [&moe[..], more].concat();
    for (args, want) in [
        (
            vec!["trace", "--ep", "2"],
            "ep 2; allowed: 1 on a model without a mixture of experts",
        ),
        (
            with(&["--ep", "3"]),
            "experts 4 is not divisible by ep 3; allowed ep: 1, 2",
        ),
        (
            with(&["--ep", "4"]),
            "batch 2 is not divisible by ep 4; allowed ep: 1, 2",
        ),
        (
            with(&["--ep", "4", "--batch", "4", "--experts", "6"]),
            "experts 6 is not divisible by ep 4; allowed ep: 1, 2",
        ),
        (
            with(&["--ep", "2", "--tp", "2"]),
            "ep 2; allowed: 1 with --tp",
        ),
        (
            with(&["--ep", "2", "--pp", "2"]),
            "ep 2; allowed: 1 with --pp",
        ),
        (
            with(&["--ep", "2", "--decode", "1"]),
            "ep 2; allowed: 1 with --decode",
        ),
        (
            with(&["--ep", "2", "--fault", "moe-capacity"]),
            "ep 2; allowed: 1 with the fault moe-capacity",
        ),
        (
            with(&["--ep", "2", "--device", "2"]),
            "device 2; allowed: 0..=1 (one of the --ep 2 devices)",
        ),
        (with(&["--ep", "65"]), "65"),
        (with(&["--ep", "0"]), "0"),
    ] {
        refused_in_one_line(&args, want);
    }
}

#[test]
fn each_device_counts_its_experts_and_the_whole_router() {
    let whole = shapetrace::Budget::of(&experts(1, 2, 0)).unwrap();
    let mut expert = 0;
    for p in shapetrace::budget::count::built(&experts(1, 2, 0)) {
        if p.name.starts_with("block1.moe.expert1.") {
            expert += p.shape.iter().product::<usize>() as u64;
        }
    }
    for device in 0..2 {
        let cfg = experts(2, 2, device);
        let b = shapetrace::Budget::of(&cfg).unwrap();
        // Half the experts of each of the 2 blocks are elsewhere.
        assert_eq!(b.total, whole.total - 2 * 2 * expert, "device {device}");
        assert_eq!(b.closed_total, b.total);
        let built = shapetrace::budget::count::built(&cfg);
        assert!(built.iter().any(|p| p.name == "block1.moe.router.weight"));
        let names: Vec<&str> = built.iter().map(|p| p.name.as_str()).collect();
        for e in 1..=4 {
            let held = names.contains(&format!("block1.moe.expert{e}.up.weight").as_str());
            assert_eq!(held, e / 3 == device, "expert {e} on device {device}");
        }
        // A token still runs k = 2 experts: the one device's FLOPs.
        assert_eq!(
            b.flops.per_token_per_block.total,
            whole.flops.per_token_per_block.total
        );
    }
    let (code, out, _) = cli(&["params", "--preset", "lesson-moe", "--ep", "2"]);
    assert_eq!(code, Some(0));
    assert!(
        out.starts_with(
            "Split over 2 devices (expert parallel: 2 of 4 experts and 1 of 2 sequences on each)"
        ),
        "{out}"
    );
    for row in ["all_to_all (dispatch)", "all_to_all (return)"] {
        assert!(
            out.lines().any(|l| l.trim_start().starts_with(row)),
            "{row}: {out}"
        );
    }
}

#[test]
fn balanced_dispatches_add_up_to_the_return_however_many_experts_a_device_holds() {
    for (experts, top_k, ep, batch) in [(4, 2, 2, 2), (16, 1, 2, 2), (8, 1, 4, 4)] {
        let mut cfg = experts_of(ep, batch, experts, top_k);
        cfg.devices.device = ep - 1;
        let b = shapetrace::Budget::of(&cfg).unwrap();
        let split = b.devices.expect("a split model");
        let row = |op: &str| {
            split
                .steps
                .iter()
                .find(|r| r.op == op)
                .unwrap_or_else(|| panic!("no {op}: {:?}", split.steps))
                .clone()
        };
        let (dispatch, back) = (row("all_to_all (dispatch)"), row("all_to_all (return)"));
        // Each block gathers E/N experts' batches and returns once.
        assert_eq!(dispatch.count, (experts / ep * 2) as u64);
        assert_eq!(back.count, 2);
        assert!(dispatch.each > 0, "{experts} experts over {ep}");
        assert_eq!(dispatch.each * (experts / ep) as u64, back.each);
        // (N−1)/N of the device's b·T·k routes of d f32 values.
        let routes = batch / ep * 4 * top_k;
        assert_eq!(back.each, ((ep - 1) * routes * 64 * 4 / ep) as u64);
    }
}

#[test]
fn the_memory_guard_counts_every_devices_copy_of_the_weights_it_does_not_split() {
    // Wide attention, narrow experts: the weights dwarf the activations.
    let wide = |ep: usize| ModelConfig {
        d_model: 1024,
        attention: shapetrace::config::Attention {
            heads: 16,
            kv_heads: 16,
            ..experts(ep, 8, 0).attention
        },
        mlp: shapetrace::config::Mlp {
            d_ff: 64,
            ..experts(ep, 8, 0).mlp
        },
        layers: 4,
        mixture: Some(shapetrace::config::Mixture {
            experts: 8,
            top_k: 2,
        }),
        ..experts(ep, 8, 0)
    };
    let (one, split) = (wide(1), wide(8));
    split.validate().unwrap();
    // Each of the 8 devices holds the attention of all 4 blocks whole:
    // 4·d² weights a block, in f32.
    let attention: u128 = 4 * 4 * 1024 * 1024 * 4;
    let grew = split.numeric_bytes_with(None) - one.numeric_bytes_with(None);
    assert!(
        grew >= 7 * attention,
        "grew {grew}, less than 7 more copies of {attention}"
    );
}

/// lesson-moe with `experts` experts, top `top_k`, over `ep` devices at
/// batch `batch`.
fn experts_of(ep: usize, batch: usize, experts: usize, top_k: usize) -> ModelConfig {
    let mut cfg = self::experts(ep, batch, 0);
    cfg.mixture = Some(shapetrace::config::Mixture { experts, top_k });
    cfg.validate().unwrap();
    cfg
}
