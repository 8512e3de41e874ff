//! What the devices' communication steps move: the ring algorithms'
//! bytes, each device sending as much as it receives.
//!
//! For a tensor of S bytes (the all-reduce's, the gather's output, the
//! reduce-scatter's input) over N devices in a ring:
//!
//! ```text
//! all_reduce      2·(N−1)/N · S    a reduce-scatter, then an all-gather
//! all_gather        (N−1)/N · S    N−1 slices of S/N each
//! reduce_scatter    (N−1)/N · S    N−1 partial slices of S/N each
//! scatter                     0    each device cuts its own slice
//! send                        S    point to point, to the next stage
//! recv                        0    it receives S
//! all_to_all        (N−1)/N · S    balanced routing: 1/N of the rows stay
//! ```
//!
//! An all-to-all's parts are the data's: a device sends what its tokens
//! routed to the others' experts. The figure here assumes each device's
//! routes spread evenly; a numeric run's step says the rows that moved.

use super::Op;

impl Op {
    /// Bytes each device sends (and receives) for this step, whose output
    /// holds `out_elems` elements of `elem_bytes` bytes; `None` for a step
    /// that is no communication.
    #[must_use]
    pub fn sent_bytes(&self, out_elems: usize, elem_bytes: usize) -> Option<u128> {
        let out = (out_elems as u128) * (elem_bytes as u128);
        let ring = |n: usize, whole: u128, times: u128| {
            let n = n.max(1) as u128;
            times * (n - 1) * whole / n
        };
        match self {
            Op::AllReduce { devices } => Some(ring(*devices, out, 2)),
            Op::AllGather { devices, .. } => Some(ring(*devices, out, 1)),
            // Its input is N times its output.
            Op::ReduceScatter { devices, .. } => {
                Some(ring(*devices, out * (*devices).max(1) as u128, 1))
            }
            Op::Scatter { .. } => Some(0),
            // Point to point: the sender sends the whole tensor once; the
            // receiver sends nothing.
            Op::Send { .. } => Some(out),
            Op::Recv { .. } => Some(0),
            Op::AllToAll { devices, .. } => Some(ring(*devices, out, 1)),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Op;

    #[test]
    fn the_ring_formulas_and_a_non_communication() {
        // (2,4,64) f32 = 2048 B over 4 devices: 2·3/4 of it.
        assert_eq!(Op::AllReduce { devices: 4 }.sent_bytes(512, 4), Some(3072));
        assert_eq!(Op::AllReduce { devices: 1 }.sent_bytes(512, 4), Some(0));
        let (axis, rank) = (1, 0);
        assert_eq!(
            Op::AllGather { devices: 2, axis }.sent_bytes(512, 4),
            Some(1024)
        );
        // Out (2,2,64) is half its input (2,4,64): sends one half.
        assert_eq!(
            Op::ReduceScatter {
                devices: 2,
                axis,
                rank
            }
            .sent_bytes(256, 4),
            Some(1024)
        );
        assert_eq!(Op::Linear.sent_bytes(512, 4), None);
    }
}
