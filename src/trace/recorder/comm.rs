//! The devices of one simulated group, each a thread with its own
//! recorder, meeting at every communication step: each hands in its
//! part and gets every device's back, in device order. At an all-to-all
//! each hands in one part for every device and gets the part every device
//! addressed to it.
//!
//! The n-th communication step of every device is the same step of the
//! model (the devices run the same code), so parts are matched by their
//! count. A device that stops early (a failed check, a cancel) leaves
//! the group; a device waiting for a part it will never send stops too,
//! instead of waiting forever.

use std::collections::HashMap;
use std::sync::mpsc::{Receiver, Sender};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};

/// A pipeline stage's ends: what it receives from the stage before and
/// sends to the stage after, point to point (each end one device of the
/// same tensor-parallel rank). A stage that stops early drops its sender,
/// and the stage waiting on it stops too.
pub struct Pipe<T> {
    /// From the previous stage's device, and that device's number; `None`
    /// on the first stage.
    pub from: Option<(Receiver<Arc<T>>, usize)>,
    /// To the next stage's device; `None` on the last stage.
    pub to: Option<Sender<Arc<T>>>,
}

/// One device's place among the devices: its tensor-parallel group and its
/// pipeline's ends, each `None` where that split is not made.
pub struct Place<'c, T> {
    /// Its tensor-parallel group.
    pub link: Option<Link<'c, T>>,
    /// Its pipeline stage's ends.
    pub pipe: Option<Pipe<T>>,
}

/// Where the devices of one group meet.
pub struct Comm<T> {
    devices: usize,
    /// The number of the group's first device among all the devices (a
    /// pipeline stage's group starts at stage·N).
    first: usize,
    state: Mutex<State<T>>,
    arrived: Condvar,
}

struct State<T> {
    /// The parts of each communication step not yet read by every device.
    rounds: HashMap<usize, Round<T>>,
    /// The devices whose forward has ended.
    left: Vec<bool>,
}

struct Round<T> {
    /// Each device's parts, shared: one that every device reads, or one
    /// for each device (an all-to-all); none is copied.
    parts: Vec<Option<Vec<Arc<T>>>>,
    read: usize,
}

/// One device's place in a [`Comm`]: its rank and how many steps it has
/// communicated. Leaves the group when dropped.
pub struct Link<'c, T> {
    comm: &'c Comm<T>,
    rank: usize,
    calls: usize,
}

impl<T: Clone> Comm<T> {
    /// A group of `devices`.
    #[must_use]
    pub fn new(devices: usize) -> Self {
        Self::starting_at(devices, 0)
    }

    /// A group of `devices` numbered from `first` among all the devices.
    #[must_use]
    pub fn starting_at(devices: usize, first: usize) -> Self {
        Self {
            devices,
            first,
            state: Mutex::new(State {
                rounds: HashMap::new(),
                left: vec![false; devices],
            }),
            arrived: Condvar::new(),
        }
    }

    /// Device `rank`'s link.
    #[must_use]
    pub fn link(&self, rank: usize) -> Link<'_, T> {
        Link {
            comm: self,
            rank,
            calls: 0,
        }
    }

    fn lock(&self) -> MutexGuard<'_, State<T>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl<T: Clone> Link<'_, T> {
    /// This device's rank.
    #[must_use]
    pub fn rank(&self) -> usize {
        self.rank
    }

    /// Hands in `mine` for this device's next communication step and
    /// returns every device's part, in device order.
    ///
    /// # Errors
    /// The number (among all the devices) of a device that left before
    /// handing in its part.
    pub fn exchange(&mut self, mine: T) -> Result<Vec<Arc<T>>, usize> {
        self.meet(vec![mine])
    }

    /// Hands in `mine`, one part for each device in device order, for
    /// this device's next communication step, and returns the part each
    /// device addressed to this one, in device order: an all-to-all.
    ///
    /// # Errors
    /// As [`Link::exchange`].
    pub fn all_to_all(&mut self, mine: Vec<T>) -> Result<Vec<Arc<T>>, usize> {
        assert_eq!(mine.len(), self.comm.devices, "one part per device");
        self.meet(mine)
    }

    /// Hands in `mine` (one part for all, or one per device) and reads
    /// this device's part of every device's.
    fn meet(&mut self, mine: Vec<T>) -> Result<Vec<Arc<T>>, usize> {
        let (comm, call) = (self.comm, self.calls);
        self.calls += 1;
        let mut s = comm.lock();
        let n = comm.devices;
        s.rounds
            .entry(call)
            .or_insert_with(|| Round {
                parts: vec![None; n],
                read: 0,
            })
            .parts[self.rank] = Some(mine.into_iter().map(Arc::new).collect());
        comm.arrived.notify_all();
        loop {
            let state = &mut *s;
            let round = state
                .rounds
                .get_mut(&call)
                .expect("a round lives until all read it");
            if round.parts.iter().all(Option::is_some) {
                let rank = self.rank;
                let parts = round
                    .parts
                    .iter()
                    .flatten()
                    // One part is for every device; N parts, one each.
                    .map(|p| Arc::clone(if p.len() == 1 { &p[0] } else { &p[rank] }))
                    .collect();
                round.read += 1;
                if round.read == n {
                    state.rounds.remove(&call);
                }
                return Ok(parts);
            }
            let missing = (0..n).find(|&r| round.parts[r].is_none() && state.left[r]);
            if let Some(gone) = missing {
                return Err(comm.first + gone);
            }
            s = comm.arrived.wait(s).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

impl<T> Drop for Link<'_, T> {
    fn drop(&mut self) {
        let mut s = self
            .comm
            .state
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        if let Some(l) = s.left.get_mut(self.rank) {
            *l = true;
        }
        drop(s);
        self.comm.arrived.notify_all();
    }
}

#[cfg(test)]
mod tests {
    use super::Comm;

    #[test]
    fn every_device_gets_every_part_in_order() {
        let comm = Comm::new(3);
        let got: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|r| {
                    let comm = &comm;
                    s.spawn(move || {
                        let mut link = comm.link(r);
                        let a = link.exchange(r).unwrap();
                        let b = link.exchange(10 * r).unwrap();
                        [a, b].concat().into_iter().map(|p| *p).collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        for parts in got {
            assert_eq!(parts, vec![0, 1, 2, 0, 10, 20]);
        }
    }

    #[test]
    fn an_all_to_all_gives_each_device_the_parts_addressed_to_it() {
        let comm = Comm::new(3);
        let got: Vec<Vec<usize>> = std::thread::scope(|s| {
            let handles: Vec<_> = (0..3)
                .map(|r| {
                    let comm = &comm;
                    s.spawn(move || {
                        let mut link = comm.link(r);
                        // Device r sends 10·r + j to device j.
                        let parts = (0..3).map(|j| 10 * r + j).collect();
                        let got = link.all_to_all(parts).unwrap();
                        got.into_iter().map(|p| *p).collect::<Vec<_>>()
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        // Device j gets 10·r + j from every r, in device order.
        assert_eq!(got, vec![vec![0, 10, 20], vec![1, 11, 21], vec![2, 12, 22]]);
    }

    #[test]
    fn a_device_that_left_stops_the_others_instead_of_hanging() {
        let comm = Comm::new(2);
        let err = std::thread::scope(|s| {
            let waiting = s.spawn(|| comm.link(0).exchange(1));
            // Device 1 leaves without handing in its part.
            drop(comm.link(1));
            waiting.join().unwrap()
        });
        assert_eq!(err, Err(1));
    }
}
