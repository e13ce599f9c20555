//! The one way a parallel stage shares a slice that its workers write: every worker reaches
//! only elements that no other worker of the stage reaches (its own batches, island or
//! output slots, or the bodies of one graph color), which rayon's iterators cannot express
//! when the elements a worker owns are chosen by a schedule, a coloring or a prefix sum rather
//! than by one contiguous split. The engine's stages and the kernels' body states
//! ([`States`](crate::body::States)) both share through this type, so its `unsafe impl`s
//! below are the one SAFETY argument for sharing among workers.

use std::marker::PhantomData;

/// A mutable slice handed to the workers of one stage, each of which accesses elements no
/// other worker accesses meanwhile. It holds the slice's exclusive borrow for `'a`, so the
/// slice cannot be read, moved or freed by anyone else while workers use it; what it cannot
/// check is that the workers' elements are disjoint, which each `unsafe` call promises.
pub struct DisjointMut<'a, T> {
    ptr: *mut T,
    len: usize,
    _slice: PhantomData<&'a mut [T]>,
}

// SAFETY: a `DisjointMut` is a `&mut [T]` whose elements are parcelled out among threads; the
// accessors below are `unsafe` and require that no element is reached by two threads at once.
// Under that contract, sharing or sending it moves only exclusive access to distinct `T`s
// between threads, which is sound exactly when `T: Send` (as for `&mut [T]` split by
// `split_at_mut` and sent to other threads).
unsafe impl<T: Send> Send for DisjointMut<'_, T> {}
// SAFETY: as for `Send`: shared references to the view give no access of their own; every
// access goes through the `unsafe` accessors and their disjointness contract.
unsafe impl<T: Send> Sync for DisjointMut<'_, T> {}

impl<T> Clone for DisjointMut<'_, T> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T> Copy for DisjointMut<'_, T> {}

impl<'a, T> DisjointMut<'a, T> {
    /// A view of `slice` for the workers of one stage.
    pub fn new(slice: &'a mut [T]) -> Self {
        DisjointMut {
            ptr: slice.as_mut_ptr(),
            len: slice.len(),
            _slice: PhantomData,
        }
    }

    /// The number of elements.
    pub fn len(self) -> usize {
        self.len
    }

    /// The first element, for a kernel that reaches elements by offsets it keeps (see
    /// `States::word`); every access through it is under the contract of the accessors.
    #[inline(always)]
    pub(crate) fn as_ptr(self) -> *mut T {
        self.ptr
    }

    /// Whether the slice is empty.
    pub fn is_empty(self) -> bool {
        self.len == 0
    }

    /// A copy of element `i`, without a reference to it: many workers may read one element
    /// at once (a static body that several constraints of a color touch).
    ///
    /// # Safety
    /// `i` is in bounds, and no other thread writes element `i` meanwhile.
    #[inline(always)]
    pub unsafe fn read(self, i: usize) -> T
    where
        T: Copy,
    {
        debug_assert!(i < self.len);
        // SAFETY: in bounds, and not written concurrently by the caller's promise.
        unsafe { self.ptr.add(i).read() }
    }

    /// Element `i`.
    ///
    /// # Safety
    /// `i` is in bounds, and no other thread accesses element `i` while the reference lives.
    #[inline(always)]
    pub unsafe fn get(self, i: usize) -> &'a mut T {
        debug_assert!(i < self.len);
        // SAFETY: in bounds, and exclusive by the caller's promise.
        unsafe { &mut *self.ptr.add(i) }
    }

    /// The elements of `range`.
    ///
    /// # Safety
    /// As for [`DisjointMut::get`], for every element of `range`.
    #[inline(always)]
    pub unsafe fn slice(self, range: std::ops::Range<usize>) -> &'a mut [T] {
        debug_assert!(range.start <= range.end && range.end <= self.len);
        // SAFETY: in bounds, and exclusive by the caller's promise.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.add(range.start), range.len()) }
    }

    /// Elements `i` and `i + 1`.
    ///
    /// # Safety
    /// As for [`DisjointMut::get`], for both.
    #[inline(always)]
    pub unsafe fn pair(self, i: usize) -> &'a mut [T; 2] {
        debug_assert!(i + 2 <= self.len);
        // SAFETY: both in bounds, and exclusive by the caller's promise; an array of two has
        // the layout of two consecutive elements.
        unsafe { &mut *(self.ptr.add(i) as *mut [T; 2]) }
    }
}
