//! [`Softness`]: the coefficients of a soft constraint, shared by the contact solver and the
//! joints' soft passes.

use crate::codec::codec_struct;
use crate::settings::WorldSettings;

/// Coefficients of a soft constraint for one substep length: a damped spring of the given
/// frequency, expressed as a velocity bias rate and a mass scale (the impulse scale of the soft
/// step is `1 - mass_scale`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Softness {
    pub(crate) bias_rate: f32,
    pub(crate) mass_scale: f32,
}

impl Softness {
    pub(crate) fn new(hertz: f32, damping_ratio: f32, h: f32) -> Softness {
        let omega = 2.0 * std::f32::consts::PI * hertz;
        let a1 = 2.0 * damping_ratio + h * omega;
        let a2 = h * omega * a1;
        let a3 = 1.0 / (1.0 + a2);
        Softness {
            bias_rate: omega / a1,
            mass_scale: a2 * a3,
        }
    }

    /// The softness of a contact for substeps `h` long, with `damping_ratio`: the contact
    /// stiffness `WorldSettings::contact_hertz`, capped at a quarter of the substep rate to
    /// stay stable, and twice that `against_fixed` (against a static or kinematic body, since
    /// only one side gives). The one place this rule is written: the joints' rigid
    /// constraints are as stiff as a contact against a fixed body (a revolute joint's point
    /// a little stiffer, see `joints::passes::point_softness`).
    pub(crate) fn contact(
        settings: &WorldSettings,
        damping_ratio: f32,
        h: f32,
        against_fixed: bool,
    ) -> Softness {
        let hertz = settings.contact_hertz.min(0.25 / h);
        let hertz = if against_fixed { 2.0 * hertz } else { hertz };
        Softness::new(hertz, damping_ratio, h)
    }
}

codec_struct!(Softness {
    bias_rate,
    mass_scale
});
