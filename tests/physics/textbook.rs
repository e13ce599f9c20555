//! The textbook's laws, one test each, every expected value computed here from the law itself:
//! restitution (with the minimum rule and the threshold), elastic collisions that keep energy,
//! momentum and angular momentum, free rotation, Coulomb friction while sliding, rolling,
//! resting stacks that stay put, and a heavy body on light ones. The situations are shared
//! with `cargo run --release -p batch2d-bench --example textbook`, which prints them as a table
//! beside rapier2d's and Box2D v3's answers.

#[path = "textbook/cases.rs"]
mod cases;

use batch2d::{Backend, Vec2};
use cases::*;

#[test]
fn a_box_landing_flat_bounces_straight_back_without_spin() {
    // Restitution 1: it leaves at the speed it came, and a flat landing has no torque.
    for (hx, hy) in [(0.5, 0.5), (0.5, 0.02), (2.0, 0.1)] {
        let (v, w) = flat_bounce(hx, hy, 5.0);
        assert!(
            (v.y - 5.0).abs() <= 0.05,
            "{hx} x {hy}: left at {v:?}, want (0, 5)"
        );
        assert!(
            v.x.abs() <= 1e-4,
            "{hx} x {hy}: drifted sideways at {}",
            v.x
        );
        assert!(w.abs() < 0.01, "{hx} x {hy}: spins at {w} rad/s");
    }
}

#[test]
fn restitution_mixes_by_the_minimum_and_ignores_slow_approaches() {
    // Newton's law of restitution with e = min(e_ball, e_floor): v' = -e v.
    for (e_ball, e_floor) in [(0.8, 0.3), (0.3, 0.8), (0.5, 1.0), (1.0, 1.0)] {
        let e = f32::min(e_ball, e_floor);
        let got = rebound_ratio(e_ball, e_floor, 4.0, 1.0);
        assert!(
            (got - e).abs() <= 0.01,
            "e {e_ball} on {e_floor}: rebound ratio {got}, want {e}"
        );
    }
    // Below the threshold a contact does not bounce: it stops.
    let got = rebound_ratio(1.0, 1.0, 0.5, 1.0);
    assert!(
        got.abs() <= 1e-3,
        "0.5 m/s under a 1 m/s threshold bounced at {got}"
    );
}

#[test]
fn hits_between_boxes_keep_momentum_and_never_gain_energy() {
    for offset in [0.0f32, 0.1, 0.3, 0.45, 0.7] {
        for e in [1.0f32, 0.5, 0.0] {
            let (energy, momentum, [a, _]) = box_hit_velocities(offset, e);
            let what = format!("offset {offset}, e {e}");
            // Without a hit A would keep its 3 m/s to the right, and both laws would hold.
            assert!(
                (a - Vec2::new(3.0, 0.0)).length() >= 0.3,
                "{what}: the boxes did not meet, A moves at {a:?}"
            );
            assert!(energy <= 1.005, "{what}: kinetic energy grew by {energy}");
            // Momentum was zero, 3 kg m/s per box.
            assert!(
                momentum[0].hypot(momentum[1]) <= 1e-3,
                "{what}: {momentum:?}"
            );
            if e == 1.0 {
                assert!(energy >= 0.99, "{what}: elastic hit lost energy: {energy}");
            }
        }
    }
}

/// Head-on and centred between equal masses meeting at 3 m/s each: by Newton's law of
/// restitution each leaves at `e` times its speed, backwards (`v' = -e v`), so the kinetic
/// energy after is `e^2` of the energy before.
#[test]
fn a_centred_hit_between_equal_boxes_keeps_e_squared_of_the_energy() {
    for e in [0.0f32, 0.5, 1.0] {
        let (energy, _, [a, b]) = box_hit_velocities(0.0, e);
        let want = (e * e) as f64;
        assert!(
            (energy - want).abs() <= 1e-2,
            "e {e}: energy ratio {energy}, want {want}"
        );
        for (name, v, want) in [("A", a, -3.0 * e), ("B", b, 3.0 * e)] {
            assert!(
                (v.x - want).abs() <= 0.03 && v.y.abs() <= 1e-3,
                "e {e}: {name} leaves at {v:?}, want ({want}, 0)"
            );
        }
    }
}

#[test]
fn a_free_body_turns_by_omega_t_at_every_allowed_speed() {
    // The cap is a quarter turn per step: pi / (2 dt).
    let cap = std::f32::consts::PI / (2.0 * DT);
    for w in [0.5f32, 10.0, 50.0, 0.999 * cap] {
        let steps = 600;
        let got = free_spin(w, steps);
        let want = w as f64 * steps as f64 * DT as f64;
        assert!(
            (got - want).abs() <= 1e-3 * want,
            "{w} rad/s: turned {got} rad, want {want}"
        );
    }
}

#[test]
fn a_frictionless_elastic_hit_keeps_angular_momentum_and_energy() {
    for offset in [0.0f32, 0.3, 0.6, 0.7] {
        let (l, e, struck) = corner_hit_struck(offset);
        if offset > 0.0 {
            assert!((l - 1.0).abs() <= 0.005, "offset {offset}: L ratio {l}");
        }
        assert!((e - 1.0).abs() <= 0.01, "offset {offset}: energy ratio {e}");
        // Both laws would hold as well if the ball missed: the box, at rest before, must move.
        assert!(
            struck.length() >= 0.1,
            "offset {offset}: the box moves at {struck:?}: nothing hit it"
        );
    }
    // Centred, the hit is one-dimensional: an elastic ball of mass m into a resting box of mass
    // M gives it 2 m / (m + M) of the ball's 5 m/s.
    let ball = std::f32::consts::PI * 0.25 * 0.25 * 2.0;
    let want = 2.0 * ball / (ball + 1.0) * 5.0;
    let (_, _, struck) = corner_hit_struck(0.0);
    assert!(
        (struck.x - want).abs() <= 0.01 * want && struck.y.abs() <= 1e-3,
        "centred: the box leaves at {struck:?}, want ({want}, 0)"
    );
}

#[test]
fn a_pool_break_keeps_momentum_and_kinetic_energy() {
    let (energy, momentum, velocities) = pool_break_velocities();
    assert!((energy - 1.0).abs() <= 0.02, "energy ratio {energy}");
    assert!(
        momentum <= 1e-4,
        "momentum changed by {momentum} of the cue's"
    );
    // Both laws would hold as well if the cue missed: it must have given most of its energy to
    // the triangle (equal masses: energy goes as speed squared), and the triangle must move.
    let (cue, rack) = velocities.split_first().unwrap();
    let kept = (cue.length() / 10.0).powi(2);
    assert!(kept <= 0.5, "the cue keeps {kept} of its energy: {cue:?}");
    let moved = rack.iter().filter(|v| v.length() >= 0.1).count();
    assert!(moved >= rack.len() / 2, "{moved} of the 15 balls move");
}

#[test]
fn newtons_cradle_passes_the_strikers_speed_to_the_last_ball() {
    for gap in [0.0f32, 0.05] {
        let v = cradle(5, 4.0, gap);
        let (last, others) = v.split_last().unwrap();
        assert!(
            *last >= 0.9,
            "gap {gap}: the last ball leaves at {last} of the striker's speed"
        );
        for (i, u) in others.iter().enumerate() {
            assert!(
                u.abs() < 0.1,
                "gap {gap}: ball {i} keeps {u} of the striker's speed"
            );
        }
    }
}

/// Each bounce keeps e^2 of the height: at e = 1 all of it, at every bounce.
#[test]
fn a_bouncing_ball_returns_to_its_height_times_e_squared() {
    for (e, height) in [(1.0f32, 2.0f32), (1.0, 0.5), (0.5, 4.0), (0.8, 3.0)] {
        let apexes = bounce_heights(e, height, if e == 1.0 { 5 } else { 2 });
        let mut want = 1.0;
        for (i, got) in apexes.iter().enumerate() {
            want *= e * e;
            assert!(
                (got - want).abs() <= 0.01 * want,
                "e {e} from {height} m: apex {i} at {got} of the drop, want {want}"
            );
        }
        assert!(!apexes.is_empty(), "e {e} from {height} m: no bounce");
    }
}

#[test]
fn a_sliding_box_decelerates_at_mu_g() {
    for mu in [0.1f32, 0.3, 0.6] {
        let got = sliding_deceleration(mu, 8.0);
        let want = mu * G;
        assert!(
            (got - want).abs() <= 0.02 * want,
            "mu {mu}: {got} m/s², want {want}"
        );
    }
}

#[test]
fn a_disk_rolls_down_a_slope_at_two_thirds_g_sin_theta_without_slipping() {
    for degrees in [10.0f32, 25.0] {
        let theta = degrees.to_radians();
        let (a, slip) = rolling(theta);
        // A uniform disk: I = m r^2 / 2, so a = g sin(theta) / (1 + 1/2).
        let want = G * theta.sin() * 2.0 / 3.0;
        assert!(
            (a - want).abs() <= 0.02 * want,
            "{degrees}°: {a} m/s², want {want}"
        );
        assert!(
            slip <= 0.01,
            "{degrees}°: the contact point slips at {slip} of the speed"
        );
    }
}

#[test]
fn pyramids_do_not_walk() {
    // Backends and thread counts give the same bits (tests/physics/determinism.rs), so one
    // configuration stands for all; a second checks that claim on one of them. The 100 rows
    // run on all cores: they are the standard large_pyramid.
    for rows in [10, 20, 30, 50, 70, 100] {
        let threads = if rows == 100 { 0 } else { 2 };
        let drift = pyramid_drift(rows, 1000, Backend::Simd, threads);
        assert!(
            drift <= 0.01,
            "{rows} rows: the top box moved {drift} m sideways"
        );
    }
    let scalar = pyramid_drift(30, 1000, Backend::Scalar, 1);
    let simd = pyramid_drift(30, 1000, Backend::Simd, 2);
    assert_eq!(scalar.to_bits(), simd.to_bits());
}

#[test]
fn a_heavy_box_on_a_column_of_light_ones_holds() {
    let overlap = heavy_on_light(1000.0, 20, 300);
    assert!(overlap < 0.01, "boxes overlap by {overlap} m");
}
