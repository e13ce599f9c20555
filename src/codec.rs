//! The byte format of [`Snapshot::to_bytes`](crate::Snapshot::to_bytes): little-endian, every
//! list led by its length, and a reader that checks each length against the bytes left before
//! it allocates, so that no input, however hostile, makes it panic or allocate more than a
//! small multiple of the input's size.
//!
//! Each saved type implements [`Codec`] next to its definition, where its private fields are.
//! Those impls destructure the type without `..`, so a field added to it fails to compile
//! until someone decides whether the snapshot saves it (see `codec_struct!`).

use crate::error::Error;
use crate::index::{BodySlot, ContactIndex, IslandIndex};

/// The bytes being written.
#[derive(Default)]
pub(crate) struct Writer {
    pub bytes: Vec<u8>,
}

/// The bytes being read, and how far.
pub(crate) struct Reader<'a> {
    bytes: &'a [u8],
}

/// `Err(InvalidSnapshot)` with `why`.
pub(crate) fn invalid(why: impl Into<String>) -> Error {
    Error::InvalidSnapshot(why.into())
}

impl<'a> Reader<'a> {
    pub fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    /// The bytes not read yet.
    pub fn remaining(&self) -> usize {
        self.bytes.len()
    }

    /// The next `n` bytes, or `Err` if fewer are left.
    pub fn take(&mut self, n: usize) -> Result<&'a [u8], Error> {
        if n > self.bytes.len() {
            return Err(invalid(format!(
                "truncated: {n} more bytes expected, {} left",
                self.bytes.len()
            )));
        }
        let (head, tail) = self.bytes.split_at(n);
        self.bytes = tail;
        Ok(head)
    }

    fn array<const N: usize>(&mut self) -> Result<[u8; N], Error> {
        let mut out = [0; N];
        out.copy_from_slice(self.take(N)?);
        Ok(out)
    }

    /// A length of a list whose items take at least `min_size` bytes each: `Err` unless that
    /// many items fit in the bytes left, which bounds every allocation by the input's size.
    pub fn len(&mut self, min_size: usize) -> Result<usize, Error> {
        let n = u64::from_le_bytes(self.array()?);
        let fits = usize::try_from(n).ok().filter(|&n| {
            n.checked_mul(min_size.max(1))
                .is_some_and(|b| b <= self.remaining())
        });
        fits.ok_or_else(|| {
            invalid(format!(
                "a list of {n} items does not fit in the {} bytes left",
                self.remaining()
            ))
        })
    }
}

/// A value the snapshot format saves.
pub(crate) trait Codec: Sized {
    /// A lower bound of the bytes an encoded value takes, at least 1, so that a list's
    /// length is bounded by the bytes left.
    const MIN_SIZE: usize;
    fn encode(&self, w: &mut Writer);
    fn decode(r: &mut Reader) -> Result<Self, Error>;
}

macro_rules! codec_number {
    ($($t:ty),*) => {$(
        impl Codec for $t {
            const MIN_SIZE: usize = std::mem::size_of::<$t>();
            fn encode(&self, w: &mut Writer) {
                w.bytes.extend_from_slice(&self.to_le_bytes());
            }
            fn decode(r: &mut Reader) -> Result<Self, Error> {
                Ok(<$t>::from_le_bytes(r.array()?))
            }
        }
    )*};
}

codec_number!(u8, u32, u64, i32, f32);

impl Codec for usize {
    const MIN_SIZE: usize = 8;
    fn encode(&self, w: &mut Writer) {
        (*self as u64).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let n = u64::decode(r)?;
        usize::try_from(n).map_err(|_| invalid(format!("{n} does not fit in usize")))
    }
}

impl Codec for bool {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        u8::from(*self).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        match u8::decode(r)? {
            0 => Ok(false),
            1 => Ok(true),
            b => Err(invalid(format!("a flag must be 0 or 1, got {b}"))),
        }
    }
}

impl<T: Codec> Codec for Vec<T> {
    const MIN_SIZE: usize = 8;
    fn encode(&self, w: &mut Writer) {
        self.len().encode(w);
        for item in self {
            item.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let n = r.len(T::MIN_SIZE)?;
        // Reserved up to the bytes left only: past that, items are pushed as they decode, each
        // from bytes of its own, so memory stays within a small multiple of the input.
        let room = r.remaining() / std::mem::size_of::<T>().max(1) + 1;
        let mut out = Vec::with_capacity(n.min(room));
        for _ in 0..n {
            out.push(T::decode(r)?);
        }
        Ok(out)
    }
}

impl<T: Codec> Codec for Box<[T]> {
    const MIN_SIZE: usize = 8;
    fn encode(&self, w: &mut Writer) {
        self.len().encode(w);
        for item in self.iter() {
            item.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(Vec::<T>::decode(r)?.into_boxed_slice())
    }
}

impl<T: Codec> Codec for Box<T> {
    const MIN_SIZE: usize = T::MIN_SIZE;
    fn encode(&self, w: &mut Writer) {
        (**self).encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(Box::new(T::decode(r)?))
    }
}

impl<T: Codec> Codec for Option<T> {
    const MIN_SIZE: usize = 1;
    fn encode(&self, w: &mut Writer) {
        self.is_some().encode(w);
        if let Some(value) = self {
            value.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok(match bool::decode(r)? {
            true => Some(T::decode(r)?),
            false => None,
        })
    }
}

impl<A: Codec, B: Codec> Codec for (A, B) {
    const MIN_SIZE: usize = A::MIN_SIZE + B::MIN_SIZE;
    fn encode(&self, w: &mut Writer) {
        self.0.encode(w);
        self.1.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok((A::decode(r)?, B::decode(r)?))
    }
}

impl<A: Codec, B: Codec, C: Codec> Codec for (A, B, C) {
    const MIN_SIZE: usize = A::MIN_SIZE + B::MIN_SIZE + C::MIN_SIZE;
    fn encode(&self, w: &mut Writer) {
        self.0.encode(w);
        self.1.encode(w);
        self.2.encode(w);
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        Ok((A::decode(r)?, B::decode(r)?, C::decode(r)?))
    }
}

impl<T: Codec + Copy + Default, const N: usize> Codec for [T; N] {
    const MIN_SIZE: usize = T::MIN_SIZE * N;
    fn encode(&self, w: &mut Writer) {
        for item in self {
            item.encode(w);
        }
    }
    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let mut out = [T::default(); N];
        for item in &mut out {
            *item = T::decode(r)?;
        }
        Ok(out)
    }
}

/// Implements [`Codec`] for a struct by its fields, in order: `codec_struct!(Type { a, b }
/// rebuilt { c })` saves `a` and `b`, and leaves `c` to its `Default` for the decoder's caller
/// to rebuild. Both lists together must name every field: the impl destructures the struct
/// without `..`, so a field added later fails to compile here until it is put in one of them.
macro_rules! codec_struct {
    ($ty:ident { $($field:ident),* $(,)? } $(rebuilt { $($skip:ident),* $(,)? })?) => {
        impl $crate::codec::Codec for $ty {
            const MIN_SIZE: usize = 1;
            fn encode(&self, w: &mut $crate::codec::Writer) {
                let $ty { $($field,)* $($($skip: _,)*)? } = self;
                $($crate::codec::Codec::encode($field, w);)*
            }
            fn decode(
                r: &mut $crate::codec::Reader,
            ) -> Result<Self, $crate::error::Error> {
                Ok($ty {
                    $($field: $crate::codec::Codec::decode(r)?,)*
                    $($($skip: Default::default(),)*)?
                })
            }
        }
    };
}
pub(crate) use codec_struct;

/// Implements `Clone` for a struct field by field, with a `clone_from` that clones each field
/// from the source's into its own, so that a column (`Vec`) reuses its allocation: what
/// [`World::restore`](crate::World::restore) does with the saved state, which then copies into
/// memory the world already has instead of allocating it afresh. The impl destructures the
/// struct without `..`, so a field added later fails to compile here until it is listed.
macro_rules! clone_fields {
    ($ty:ident { $($field:ident),* $(,)? }) => {
        impl Clone for $ty {
            fn clone(&self) -> Self {
                let $ty { $($field,)* } = self;
                $ty { $($field: $field.clone(),)* }
            }
            fn clone_from(&mut self, source: &Self) {
                let $ty { $($field,)* } = self;
                $($field.clone_from(&source.$field);)*
            }
        }
    };
}
pub(crate) use clone_fields;

macro_rules! codec_index {
    ($($t:ident),*) => {$(
        impl Codec for $t {
            const MIN_SIZE: usize = 4;
            fn encode(&self, w: &mut Writer) {
                (self.index() as u32).encode(w);
            }
            fn decode(r: &mut Reader) -> Result<Self, Error> {
                Ok(match u32::decode(r)? {
                    u32::MAX => $t::NONE,
                    i => $t::new(i as usize),
                })
            }
        }
    )*};
}

codec_index!(BodySlot, ContactIndex, IslandIndex);
