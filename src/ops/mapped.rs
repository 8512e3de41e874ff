//! A checkpoint tensor where it lies: a window on the read-only mapping of
//! its file, and how the model reads it.
//!
//! Loading decides the layout, never the model: a [`Mapped`] is the file's
//! stored tensor (its bytes, dtype and shape) plus the view the model wants
//! of it, as an element offset, a shape and strides over the stored
//! elements. A transpose swaps the strides; q, k or v of a fused matrix is
//! a range of its last axis. Neither copies anything.
//!
//! How it is read:
//!
//! ```text
//! F32, 4-byte aligned, little-endian host   in place: a strided view of the mapping
//! F32 misaligned (or a big-endian host)     copied to f32 once, when the model is built
//! F16, BF16                                 widened to f32 by each op that reads it,
//!                                           and dropped when the op is done; or, when
//!                                           the memory limit holds the model in f32,
//!                                           widened once and kept (`keep_widened`)
//! owned F32 (a GGUF q/k with its rows put   in place: a strided view of its own buffer,
//!   back, a Q8_0 tensor dequantised)        made once at load; `release` gives nothing back
//! ```
//!
//! safetensors pads nothing, so an F32 tensor after an odd-sized F16 one
//! (or a header whose length is not a multiple of 4) starts off the 4-byte
//! grid; such a tensor alone is copied.
//!
//! Once an op has read a weight, its pages are given back
//! ([`Mapped::release`]): they leave the process's resident set and stay
//! in the page cache, so a forward holds the weights of the op it runs,
//! not every weight it has passed.
//!
//! The mapping is private and read-only. Changing the file while a run
//! maps it is a hazard of every mapped reader (PyTorch's, llama.cpp's):
//! the run may see new bytes, and a file cut short faults (SIGBUS) on the
//! missing pages. The header and the data length are checked before the
//! file is mapped ([`crate::weights::file::Header::open`]); do not write a
//! checkpoint while a trace reads it.

use half::f16;
use half::slice::HalfFloatSliceExt;
use memmap2::{Mmap, UncheckedAdvice};
use ndarray::{ArrayD, ArrayViewD, IxDyn, ShapeBuilder};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

/// The element types a checkpoint tensor may be stored in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stored {
    /// 4-byte IEEE floats.
    F32,
    /// IEEE half precision.
    F16,
    /// bfloat16.
    BF16,
}

impl Stored {
    /// Bytes per element.
    #[must_use]
    pub fn width(self) -> usize {
        match self {
            Stored::F32 => 4,
            Stored::F16 | Stored::BF16 => 2,
        }
    }
}

/// Where a tensor's stored bytes live.
#[derive(Debug, Clone)]
enum Backing {
    /// The whole file, mapped; shared by every tensor of the file.
    Map(Arc<Mmap>),
    /// f32 values of its own, made at load (a GGUF tensor that cannot be
    /// a view of its file).
    Owned(Arc<[f32]>),
}

impl std::ops::Deref for Backing {
    type Target = [u8];
    fn deref(&self) -> &[u8] {
        match self {
            Backing::Map(m) => &m[..],
            Backing::Owned(v) => bytemuck::cast_slice::<f32, u8>(&v[..]),
        }
    }
}

/// One tensor of a mapped checkpoint, as the model reads it.
#[derive(Debug, Clone)]
pub struct Mapped {
    /// Its file's mapping, or values of its own.
    map: Backing,
    /// Where the stored tensor's bytes start in the file.
    start: usize,
    /// How many elements it stores.
    len: usize,
    /// Their type.
    dtype: Stored,
    /// The model's view: first element (in elements from `start`), shape
    /// and strides (in elements).
    offset: usize,
    shape: Vec<usize>,
    strides: Vec<usize>,
    /// How many times its values were converted to owned f32 (widened or
    /// copied): shared by its clones, for tests and the curious.
    widened: Arc<AtomicUsize>,
    /// A 16-bit tensor's f32 values, widened at the first read and kept
    /// for every later one, when the memory limit holds the whole model in
    /// f32 ([`Mapped::keep_widened`]); `None` widens at every read.
    kept: Option<Arc<OnceLock<ArrayD<f32>>>>,
}

impl Mapped {
    /// The stored tensor of `shape` and `dtype` whose bytes start at
    /// `start` in `map`, read as stored (row-major). `None` when the bytes
    /// are not all inside the mapping. Crate-private: `map` must be a
    /// file's private read-only mapping, never written, which is what makes
    /// [`Mapped::release`] sound; only the checkpoint reader makes one.
    #[must_use]
    pub(crate) fn new(
        map: Arc<Mmap>,
        start: usize,
        dtype: Stored,
        shape: &[usize],
    ) -> Option<Self> {
        let len = shape.iter().try_fold(1usize, |a, &n| a.checked_mul(n))?;
        let end = len.checked_mul(dtype.width())?.checked_add(start)?;
        (end <= map.len()).then(|| Self::whole(Backing::Map(map), start, len, dtype, shape))
    }

    /// The whole stored tensor of `len` elements from `start` in
    /// `backing`, viewed as `shape` in row-major order.
    fn whole(backing: Backing, start: usize, len: usize, dtype: Stored, shape: &[usize]) -> Self {
        Self {
            map: backing,
            start,
            len,
            dtype,
            offset: 0,
            strides: c_strides(shape),
            shape: shape.to_vec(),
            widened: Arc::new(AtomicUsize::new(0)),
            kept: None,
        }
    }

    /// A tensor of `shape` holding `values` (row-major f32) of its own:
    /// one a loader computed, not a view of a file. `None` when their
    /// count is not the shape's.
    #[must_use]
    pub(crate) fn owned(values: Vec<f32>, shape: &[usize]) -> Option<Self> {
        let len = shape.iter().try_fold(1usize, |a, &n| a.checked_mul(n))?;
        (len == values.len())
            .then(|| Self::whole(Backing::Owned(values.into()), 0, len, Stored::F32, shape))
    }

    /// Whether its values are its own (made at load), not a view of a file.
    #[must_use]
    pub fn is_owned(&self) -> bool {
        matches!(self.map, Backing::Owned(_))
    }

    /// The same bytes read transposed (a matrix [out, in] as (in, out)).
    #[must_use]
    pub fn transposed(mut self) -> Self {
        self.shape.reverse();
        self.strides.reverse();
        self.widened = Arc::new(AtomicUsize::new(0));
        self.kept = self.kept.map(|_| Arc::default());
        self
    }

    /// Columns `lo..hi` of the last axis (q, k or v of a fused matrix);
    /// `None` when out of range.
    #[must_use]
    pub fn columns(&self, lo: usize, hi: usize) -> Option<Self> {
        let last = self.shape.len().checked_sub(1)?;
        (lo <= hi && hi <= self.shape[last]).then(|| {
            let mut m = self.clone();
            m.offset += lo * m.strides[last];
            m.shape[last] = hi - lo;
            m.widened = Arc::new(AtomicUsize::new(0));
            m.kept = m.kept.map(|_| Arc::default());
            m
        })
    }

    /// The shape the model reads.
    #[must_use]
    pub fn shape(&self) -> &[usize] {
        &self.shape
    }

    /// The stored element type.
    #[must_use]
    pub fn dtype(&self) -> Stored {
        self.dtype
    }

    /// The stored tensor's bytes (all of it, whatever part is viewed).
    fn bytes(&self) -> &[u8] {
        &self.map[self.start..self.start + self.len * self.dtype.width()]
    }

    /// The address range of the whole mapping (or of its own values), for
    /// tests that check a tensor is read in place.
    #[must_use]
    pub fn mapping_range(&self) -> std::ops::Range<usize> {
        let p = self.map.as_ptr() as usize;
        p..p + self.map.len()
    }

    /// The values in place, as a strided view of the mapping: `Some` for
    /// an F32 tensor whose bytes are 4-byte aligned, on a little-endian
    /// host; `None` otherwise (see [`Mapped::widen`]).
    #[must_use]
    pub fn view(&self) -> Option<ArrayViewD<'_, f32>> {
        if self.dtype != Stored::F32 || cfg!(target_endian = "big") {
            return None;
        }
        let values: &[f32] = bytemuck::try_cast_slice(self.bytes()).ok()?;
        self.window(values)
    }

    /// The model's view over `values`, the stored elements.
    fn window<'a, T>(&self, values: &'a [T]) -> Option<ArrayViewD<'a, T>> {
        let shape = IxDyn(&self.shape).strides(IxDyn(&self.strides));
        ArrayViewD::from_shape(shape, values.get(self.offset..)?).ok()
    }

    /// Whether [`Mapped::view`] reads it in place.
    #[must_use]
    pub fn in_place(&self) -> bool {
        self.view().is_some()
    }

    /// The values as an owned f32 array in the model's shape (row-major),
    /// converted from the stored type; counted in [`Mapped::widened`].
    #[must_use]
    pub fn widen(&self) -> ArrayD<f32> {
        self.widened.fetch_add(1, Ordering::Relaxed);
        self.decode()
    }

    /// Keeps the f32 values once widened, for every later read: what a run
    /// does when the memory limit holds every weight in f32 (as frameworks
    /// load a 16-bit checkpoint into f32), so each forward after the first
    /// multiplies row-major f32 weights and converts nothing. An F32 tensor
    /// read in place is unchanged.
    #[must_use]
    pub fn keep_widened(mut self) -> Self {
        if self.kept.is_none() {
            self.kept = Some(Arc::default());
        }
        self
    }

    /// The kept f32 values (row-major), widened now if this is the first
    /// read; `None` unless [`Mapped::keep_widened`] asked for them, or for
    /// a tensor read in place. Counted in [`Mapped::widened`] once.
    #[must_use]
    pub fn kept(&self) -> Option<&ArrayD<f32>> {
        if self.in_place() {
            return None;
        }
        Some(self.kept.as_ref()?.get_or_init(|| self.widen()))
    }

    /// The values widened to f32 in the order they are stored, strided as
    /// the model views them: a transposed weight stays a transposed view
    /// (the matrix product reads it as it is), a range of columns converts
    /// only the stored elements it spans. Nothing is moved. Counted in
    /// [`Mapped::widened`].
    #[must_use]
    pub fn widen_strided(&self) -> ArrayD<f32> {
        self.widened.fetch_add(1, Ordering::Relaxed);
        if let Some(v) = self.view() {
            return v.as_standard_layout().into_owned();
        }
        let span = if self.shape.contains(&0) {
            0
        } else {
            let last: usize = self
                .shape
                .iter()
                .zip(&self.strides)
                .map(|(n, s)| (n - 1) * s)
                .sum();
            last + 1
        };
        let values = self.convert(self.offset..self.offset + span);
        let shape = IxDyn(&self.shape).strides(IxDyn(&self.strides));
        // The strides reach exactly the `span` elements converted.
        ArrayD::from_shape_vec(shape, values).unwrap_or_else(|_| self.decode())
    }

    /// The stored elements `range` converted to f32, in stored order, on
    /// every core for a large tensor.
    fn convert(&self, range: std::ops::Range<usize>) -> Vec<f32> {
        use rayon::prelude::*;
        const CHUNK: usize = 1 << 16;
        let mut out = vec![0.0; range.len()];
        out.par_chunks_mut(CHUNK).enumerate().for_each(|(i, part)| {
            let at = range.start + i * CHUNK;
            self.convert_into(at..at + part.len(), part);
        });
        out
    }

    /// The stored elements `range` converted to f32 into `out` (as long).
    fn convert_into(&self, range: std::ops::Range<usize>, out: &mut [f32]) {
        let w = self.dtype.width();
        let bytes = &self.bytes()[range.start * w..range.end * w];
        match self.dtype {
            Stored::F32 => {
                for (o, b) in out.iter_mut().zip(bytes.chunks_exact(4)) {
                    *o = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                }
            }
            // bf16 is the top half of an f32.
            Stored::BF16 => {
                for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                    *o = f32::from_bits(u32::from(u16::from_le_bytes([b[0], b[1]])) << 16);
                }
            }
            Stored::F16 => match bytemuck::try_cast_slice::<u8, f16>(bytes) {
                // half's slice conversion uses the CPU's F16C where it has it.
                Ok(h) if cfg!(target_endian = "little") => h.convert_to_f32_slice(out),
                _ => {
                    for (o, b) in out.iter_mut().zip(bytes.chunks_exact(2)) {
                        *o = f16::from_le_bytes([b[0], b[1]]).to_f32();
                    }
                }
            },
        }
    }

    /// [`Mapped::widen`] without counting.
    fn decode(&self) -> ArrayD<f32> {
        if let Some(v) = self.view() {
            return v.as_standard_layout().into_owned();
        }
        let all = self.convert(0..self.len);
        if let Some(rows) = self.transposed_rows(&all) {
            return rows;
        }
        // `new`, `transposed` and `columns` keep the view inside the
        // stored elements, so the window always fits.
        self.window(&all)
            .map(|v| v.as_standard_layout().into_owned())
            .unwrap_or_else(|| ArrayD::zeros(IxDyn(&self.shape)))
    }

    /// A matrix read transposed (a stored [out, in] viewed as (in, out),
    /// whole or a range of its columns) copied row-major from `all`, its
    /// stored elements: in square tiles, each read down its stored rows
    /// and written along the output's, so neither side strides across the
    /// whole matrix; row blocks on every core. `None` for any other view.
    fn transposed_rows(&self, all: &[f32]) -> Option<ArrayD<f32>> {
        use rayon::prelude::*;
        const TILE: usize = 32;
        let (&[rows, cols], &[1, stride]) = (&self.shape[..], &self.strides[..]) else {
            return None;
        };
        // The last element the view reads must be stored.
        let last = self.offset + rows.checked_sub(1)? + cols.checked_sub(1)? * stride;
        if last >= all.len() {
            return None;
        }
        let mut out = vec![0.0f32; rows * cols];
        out.par_chunks_mut(TILE * cols)
            .enumerate()
            .for_each(|(b, block)| {
                let r0 = b * TILE;
                let n = block.len() / cols;
                for c0 in (0..cols).step_by(TILE) {
                    for c in c0..(c0 + TILE).min(cols) {
                        // Output column c is stored row c, elements r0.. of it.
                        let at = self.offset + c * stride + r0;
                        for (r, v) in all[at..at + n].iter().enumerate() {
                            block[r * cols + c] = *v;
                        }
                    }
                }
            });
        ArrayD::from_shape_vec(IxDyn(&[rows, cols]), out).ok()
    }

    /// Rows `ids` of a table read as stored, (V, d), widened to f32 into
    /// `out` (ids.len(), d): only the rows named are read. An id outside
    /// 0..V gives a row of NaN. Counted in [`Mapped::widened`]. `None` for
    /// a view whose rows are not contiguous (a transposed one).
    #[must_use]
    pub fn gather(&self, ids: &[f64], out: &[usize]) -> Option<ArrayD<f32>> {
        let (&[v, d], &[s, 1]) = (&self.shape[..], &self.strides[..]) else {
            return None;
        };
        self.widened.fetch_add(1, Ordering::Relaxed);
        let mut y = vec![f32::NAN; ids.len() * d];
        for (id, row) in ids.iter().zip(y.chunks_exact_mut(d.max(1))) {
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let i = *id as usize;
            if *id >= 0.0 && i < v {
                let at = self.offset + i * s;
                self.convert_into(at..at + d, row);
            }
        }
        ArrayD::from_shape_vec(IxDyn(out), y).ok()
    }

    /// How many times the values were widened or copied to f32.
    #[must_use]
    pub fn widened(&self) -> usize {
        self.widened.load(Ordering::Relaxed)
    }

    /// Whether both hold the same values in the same shape (read in place
    /// when both can be; otherwise each converted once, uncounted).
    #[must_use]
    pub fn same_values(&self, other: &Mapped) -> bool {
        match (self.view(), other.view()) {
            (Some(a), Some(b)) => a == b,
            _ => self.decode() == other.decode(),
        }
    }

    /// Bytes of the stored tensor.
    #[must_use]
    pub fn stored_bytes(&self) -> usize {
        self.len * self.dtype.width()
    }

    /// Gives this process's pages of the stored tensor back once an op has
    /// read it: they leave the resident set but stay in the kernel's page
    /// cache, so the next read (the next forward's) maps them again
    /// without touching the disk. A forward therefore holds the weights of
    /// the op it runs, not every weight it has passed. Returns whether the
    /// kernel took the advice (it may refuse, and nothing changes then).
    /// A tensor of its own values gives nothing back (false).
    #[cfg(unix)]
    pub fn release(&self) -> bool {
        let Backing::Map(map) = &self.map else {
            return false;
        };
        let len = self.stored_bytes();
        if len == 0 {
            return true;
        }
        #[allow(unsafe_code)]
        // SAFETY: MADV_DONTNEED discards a private mapping's own copies of
        // its pages, and the next access reads the file again. This mapping
        // is private and read-only (`map_copy_read_only`): it is never
        // written, so it has no copies of its own, and every page reads
        // back the file's bytes, the same bytes any live borrow saw (only
        // the checkpoint reader makes a `Mapped`, `new` being crate-private,
        // and it maps nothing else). No
        // value a reader can observe changes (the file not being rewritten
        // during the run is the mapping's own premise, stated above).
        // memmap2 widens the range to whole pages, so a page shared with a
        // neighbouring tensor is given back too, and read again as well.
        unsafe {
            map.unchecked_advise_range(UncheckedAdvice::DontNeed, self.start, len)
                .is_ok()
        }
    }

    /// Elsewhere the pages stay: nothing is given back.
    #[cfg(not(unix))]
    pub fn release(&self) -> bool {
        false
    }
}

/// Row-major strides of `shape`, in elements.
fn c_strides(shape: &[usize]) -> Vec<usize> {
    let mut s = vec![1; shape.len()];
    for i in (1..shape.len()).rev() {
        s[i - 1] = s[i] * shape[i];
    }
    s
}
