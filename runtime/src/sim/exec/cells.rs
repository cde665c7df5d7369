//! Per-cell values of the race-metadata buffers (`BlockState::meta`: one per shared buffer,
//! one per byte of dynamic shared memory), stored densely: the TMA and cp.async checks look
//! a cell up on every shared-memory access, and a hash map there was most of the
//! simulator's time on TMA and cp.async pipelines.

/// Values keyed by (race-metadata buffer, cell), `None` where a cell has none.
pub(super) struct CellMap<V> {
    bufs: Vec<Vec<Option<V>>>,
    len: usize,
}

impl<V> Default for CellMap<V> {
    fn default() -> Self {
        CellMap {
            bufs: Vec::new(),
            len: 0,
        }
    }
}

impl<V: Copy> CellMap<V> {
    /// Whether no cell has a value.
    pub(super) fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The value of `cell` of buffer `buf`.
    pub(super) fn get(&self, (buf, cell): (usize, usize)) -> Option<&V> {
        self.bufs.get(buf)?.get(cell)?.as_ref()
    }

    /// The value of `cell` of buffer `buf`, to change.
    pub(super) fn get_mut(&mut self, (buf, cell): (usize, usize)) -> Option<&mut V> {
        self.bufs.get_mut(buf)?.get_mut(cell)?.as_mut()
    }

    /// Sets the value of `cell` of buffer `buf`.
    pub(super) fn insert(&mut self, (buf, cell): (usize, usize), v: V) {
        if self.bufs.len() <= buf {
            self.bufs.resize_with(buf + 1, Vec::new);
        }
        let cells = &mut self.bufs[buf];
        if cells.len() <= cell {
            cells.resize(cell + 1, None);
        }
        if cells[cell].replace(v).is_none() {
            self.len += 1;
        }
    }

    /// Clears the value of `cell` of buffer `buf`.
    pub(super) fn remove(&mut self, (buf, cell): (usize, usize)) {
        if let Some(slot) = self.bufs.get_mut(buf).and_then(|c| c.get_mut(cell))
            && slot.take().is_some()
        {
            self.len -= 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::CellMap;

    #[test]
    fn counts_cells_with_values() {
        let mut m = CellMap::default();
        assert!(m.is_empty());
        assert_eq!(m.get((3, 100)), None);
        m.insert((3, 100), 7u32);
        m.insert((3, 100), 8);
        m.insert((0, 2), 1);
        assert_eq!(m.get((3, 100)), Some(&8));
        assert_eq!(m.get((3, 99)), None);
        assert_eq!(m.get((1, 0)), None);
        *m.get_mut((0, 2)).unwrap() = 5;
        assert_eq!(m.get((0, 2)), Some(&5));
        m.remove((3, 100));
        m.remove((3, 100));
        m.remove((9, 9));
        assert!(!m.is_empty());
        m.remove((0, 2));
        assert!(m.is_empty());
    }
}
