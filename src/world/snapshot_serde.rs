//! The `serde` feature's [`Snapshot`]: its bytes ([`Snapshot::to_bytes`]), read back through
//! [`Snapshot::from_bytes`] with every check of it, so that bad input is an error of the
//! deserializer, never a panic.

use crate::world::snapshot::Snapshot;
use serde::de::{self, SeqAccess, Visitor};
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;

/// A snapshot serializes as its bytes ([`Snapshot::to_bytes`]): compact in a binary format,
/// a list of numbers in a text one.
impl Serialize for Snapshot {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(&self.to_bytes())
    }
}

/// Read through [`Snapshot::from_bytes`]: bytes it refuses are an error of the deserializer,
/// with its reason.
impl<'de> Deserialize<'de> for Snapshot {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Snapshot, D::Error> {
        deserializer.deserialize_bytes(SnapshotVisitor)
    }
}

struct SnapshotVisitor;

impl<'de> Visitor<'de> for SnapshotVisitor {
    type Value = Snapshot;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("the bytes of a batch2d snapshot")
    }

    fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Snapshot, E> {
        Snapshot::from_bytes(bytes).map_err(E::custom)
    }

    // Text formats (JSON) have no bytes: they write a list of numbers.
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Snapshot, A::Error> {
        // The hint comes from the input; the list grows only as its items are read.
        let mut bytes = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(1 << 20));
        while let Some(byte) = seq.next_element::<u8>()? {
            bytes.push(byte);
        }
        self.visit_bytes(&bytes)
    }
}
