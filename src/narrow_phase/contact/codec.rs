//! The contact set in a snapshot's bytes.

use super::{Contact, ContactSet, FrozenContact, THAWED};
use crate::broad_phase::compound::Children;
use crate::codec::{codec_struct, Codec, Reader, Writer};
use crate::error::Error;
use crate::index::NONE;
use crate::narrow_phase::recycle::Base;

codec_struct!(Contact {
    a,
    b,
    manifold,
    friction,
    restitution,
    tangent_speed
});

codec_struct!(FrozenContact {
    contact,
    base,
    children
});

/// Saves the contacts with what the next update and the events read beside them: each one's
/// shape pair, recycling base and flags. The bases are read back into `Bases::thawed`, where
/// the next update finds them as it finds those of woken contacts; the scratch is rebuilt.
impl Codec for ContactSet {
    const MIN_SIZE: usize = 1;

    fn encode(&self, w: &mut Writer) {
        let ContactSet {
            list,
            keys,
            base_of: _,
            touching,
            one_point,
            closing,
            touch_threshold,
            touching_as_before,
            bases: _,
            previous: _,
            candidates: _,
            found: _,
            new_touching: _,
            new_one_point: _,
            speed: _,
            chunk_starts: _,
            poses: _,
        } = self;
        touch_threshold.encode(w);
        touching_as_before.encode(w);
        let in_sync = self.in_sync();
        in_sync.encode(w);
        list.encode(w);
        if in_sync {
            for i in 0..list.len() {
                keys[i].2.encode(w);
                let base = (self.base_of[i] != NONE).then(|| self.base(i));
                base.encode(w);
                touching[i].encode(w);
                one_point[i].encode(w);
                closing[i].encode(w);
            }
        }
    }

    fn decode(r: &mut Reader) -> Result<Self, Error> {
        let mut set = ContactSet {
            touch_threshold: f32::decode(r)?,
            touching_as_before: bool::decode(r)?,
            ..ContactSet::default()
        };
        let in_sync = bool::decode(r)?;
        set.list = Vec::decode(r)?;
        if in_sync {
            for c in &set.list {
                set.keys.push((c.a, c.b, Children::decode(r)?));
                match Option::<Base>::decode(r)? {
                    Some(base) => {
                        set.base_of.push(set.bases.thawed.len() as u32 | THAWED);
                        set.bases.thawed.push(base);
                    }
                    None => set.base_of.push(NONE),
                }
                set.touching.push(bool::decode(r)?);
                set.one_point.push(bool::decode(r)?);
                set.closing.push(f32::decode(r)?);
            }
        }
        Ok(set)
    }
}
