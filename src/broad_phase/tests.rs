//! The broadphase against a brute-force reference on seeded random scenes, plus determinism
//! across calls and thread counts.

use super::proxies::Proxies;
use super::BroadPhase;
use crate::body::SlotKind;
use crate::geometry::math::{Aabb, Vec2};

/// The integration tests' generator, whose sequences the seeds below were chosen with.
#[path = "../../tests/common/rng.rs"]
mod rng;

use rng::Rng;

impl Rng {
    /// Log-uniform in [lo, hi), so small and huge sizes are equally represented.
    fn log_range(&mut self, lo: f32, hi: f32) -> f32 {
        (lo.ln() + (hi.ln() - lo.ln()) * self.next_f32()).exp()
    }
}

/// Owned proxy columns: the broadphase's own copy of them, filled by hand.
type Scene = super::FatProxies;

impl Scene {
    fn push(&mut self, aabb: Aabb, kind: SlotKind) {
        self.push_filtered(aabb, kind, 1, u32::MAX);
    }

    fn push_filtered(&mut self, aabb: Aabb, kind: SlotKind, layer: u32, mask: u32) {
        self.aabbs.push(aabb);
        self.kinds.push(kind);
        self.layers.push(layer);
        self.masks.push(mask);
    }
}

fn boxed(center: Vec2, half_w: f32, half_h: f32) -> Aabb {
    let h = Vec2::new(half_w, half_h);
    Aabb::new(center - h, center + h)
}

fn random_kind(rng: &mut Rng) -> SlotKind {
    match rng.below(10) {
        0 => SlotKind::Empty,
        1 => SlotKind::Fixed,
        2 => SlotKind::Kinematic,
        _ => SlotKind::Dynamic,
    }
}

/// `count` proxies of mixed sizes (0.01 to 100 m) scattered over a `span` square at `origin`,
/// with holes, every kind, layer filters and a few huge static grounds.
fn mixed_scene(seed: u32, count: usize, origin: Vec2, span: f32) -> Scene {
    let mut rng = Rng(seed);
    let mut scene = Scene::default();
    for _ in 0..count {
        // Mostly small bodies, as in real scenes, with a long tail up to 100 m.
        let size = if rng.below(8) == 0 {
            rng.log_range(0.01, 100.0)
        } else {
            rng.log_range(0.01, 2.0)
        };
        let center = origin + Vec2::new(rng.range(0.0, span), rng.range(0.0, span));
        let aabb = boxed(center, 0.5 * size, 0.5 * size * rng.range(0.2, 1.0));
        let layer = 1 << rng.below(4);
        let mask = if rng.below(4) == 0 {
            rng.below(16) as u32
        } else {
            u32::MAX
        };
        scene.push_filtered(aabb, random_kind(&mut rng), layer, mask);
        if rng.below(500) == 0 {
            let ground = origin + Vec2::new(rng.range(0.0, span), rng.range(0.0, span));
            scene.push(boxed(ground, 250.0, 1.0), SlotKind::Fixed);
        }
    }
    scene
}

/// The definition, checked pair by pair.
fn brute_force(p: &Proxies) -> Vec<(u32, u32)> {
    let n = p.aabbs.len();
    let mut pairs = Vec::new();
    for a in 0..n {
        for b in a + 1..n {
            let kinds = [p.kinds[a], p.kinds[b]];
            if kinds.contains(&SlotKind::Empty)
                || !kinds.contains(&SlotKind::Dynamic)
                || p.layers[a] & p.masks[b] == 0
                || p.layers[b] & p.masks[a] == 0
                || !p.aabbs[a].overlaps(&p.aabbs[b])
            {
                continue;
            }
            pairs.push((a as u32, b as u32));
        }
    }
    pairs
}

fn find(bp: &mut BroadPhase, scene: &Scene) -> Vec<(u32, u32)> {
    let mut pairs = Vec::new();
    bp.find_pairs(&scene.proxies(), &mut pairs);
    pairs
}

fn assert_matches_brute_force(scene: &Scene) {
    let expected = brute_force(&scene.proxies());
    let got = find(&mut BroadPhase::new(), scene);
    assert_eq!(got.len(), expected.len(), "pair count differs");
    assert_eq!(got, expected);
}

/// A pyramid of 1 m boxes, 100 at the base (5050 in all), resting on a 200 m ground.
fn pyramid_scene(with_ground: bool) -> Scene {
    let mut scene = Scene::default();
    if with_ground {
        scene.push(boxed(Vec2::new(0.0, -1.0), 100.0, 1.0), SlotKind::Fixed);
    }
    for row in 0..100 {
        for col in 0..100 - row {
            let x = col as f32 - 0.5 * (100 - row) as f32 + 0.5;
            let center = Vec2::new(x, 0.5 + row as f32);
            scene.push(boxed(center, 0.52, 0.52), SlotKind::Dynamic);
        }
    }
    scene
}

/// 20000 circles of radius 0.25 packed in a container, as their (slightly fattened) boxes.
fn circles_scene() -> Scene {
    let mut rng = Rng(7);
    let mut scene = Scene::default();
    scene.push(boxed(Vec2::new(0.0, -0.5), 41.0, 0.5), SlotKind::Fixed);
    scene.push(boxed(Vec2::new(-40.5, 40.0), 0.5, 40.0), SlotKind::Fixed);
    scene.push(boxed(Vec2::new(40.5, 40.0), 0.5, 40.0), SlotKind::Fixed);
    for i in 0..20_000 {
        let jitter = Vec2::new(rng.range(-0.02, 0.02), rng.range(-0.02, 0.02));
        let center = Vec2::new(
            -39.75 + (i % 160) as f32 * 0.5,
            0.25 + (i / 160) as f32 * 0.5,
        );
        scene.push(boxed(center + jitter, 0.26, 0.26), SlotKind::Dynamic);
    }
    scene
}

#[test]
fn random_mixed_scenes_match_brute_force() {
    for seed in 1..7 {
        assert_matches_brute_force(&mixed_scene(seed, 3000, Vec2::ZERO, 300.0));
    }
}

/// The pair search leaves out the filters where every small proxy is dynamic and all are in a
/// layer they all collide with; where one is not, and for a large proxy looking through the
/// cells, the filters still count.
#[test]
fn filters_count_unless_every_small_proxy_pairs_with_every_other() {
    for variant in 0..4 {
        let mut scene = Scene::default();
        // Large (wider than 64 cells of the pyramid's grid), and first: it looks through the
        // cells for its partners.
        let (layer, mask) = if variant == 3 { (2, 2) } else { (1, u32::MAX) };
        let platform = boxed(Vec2::new(0.0, 3.0), 30.0, 2.0);
        scene.push_filtered(platform, SlotKind::Dynamic, layer, mask);
        let pyramid = pyramid_scene(false);
        for (&aabb, &kind) in pyramid.aabbs.iter().zip(&pyramid.kinds) {
            scene.push(aabb, kind);
        }
        match variant {
            // A box that collides with no layer the others are in.
            1 => scene.masks[41] = 2,
            // Two neighbours that may not pair with each other.
            2 => scene.kinds[41..43].fill(SlotKind::Kinematic),
            _ => {}
        }
        let mut bp = BroadPhase::new();
        let got = find(&mut bp, &scene);
        assert_eq!(bp.large_proxy_count(), 1, "variant {variant}");
        let expected = brute_force(&scene.proxies());
        assert_eq!(got, expected, "variant {variant}");
        // Each variant takes out pairs that overlap.
        let all = (scene.aabbs.iter().enumerate())
            .flat_map(|(a, p)| (a + 1..scene.aabbs.len()).map(move |b| (a, b, p)))
            .filter(|&(_, b, p)| p.overlaps(&scene.aabbs[b]))
            .count();
        assert_eq!(variant == 0, got.len() == all, "variant {variant}");
    }
}

#[test]
fn dense_mixed_scene_matches_brute_force() {
    assert_matches_brute_force(&mixed_scene(11, 4000, Vec2::new(-20.0, -20.0), 40.0));
}

#[test]
fn far_away_scene_matches_brute_force() {
    assert_matches_brute_force(&mixed_scene(21, 3000, Vec2::new(1e5, 1e5), 300.0));
    assert_matches_brute_force(&mixed_scene(22, 2000, Vec2::new(-1e5, 1e5), 50.0));
}

#[test]
fn huge_coordinates_match_brute_force() {
    let mut rng = Rng(31);
    let mut scene = mixed_scene(32, 1000, Vec2::new(-1e7, -1e7), 2e7);
    for _ in 0..200 {
        let center = Vec2::new(rng.range(-1e7, 1e7), rng.range(-1e7, 1e7));
        let half = rng.log_range(0.01, 1e7);
        scene.push(boxed(center, half, half), random_kind(&mut rng));
    }
    // Boxes reaching far past any cell coordinate an i32 can hold.
    scene.push(boxed(Vec2::ZERO, 1e30, 1e30), SlotKind::Fixed);
    scene.push(boxed(Vec2::new(1e30, -1e30), 1.0, 1.0), SlotKind::Dynamic);
    assert_matches_brute_force(&scene);
}

#[test]
fn identical_positions_match_brute_force() {
    let mut rng = Rng(41);
    let mut scene = Scene::default();
    for _ in 0..1000 {
        scene.push(boxed(Vec2::new(3.0, 4.0), 0.5, 0.5), random_kind(&mut rng));
    }
    let expected = brute_force(&scene.proxies());
    assert!(expected.len() > 300_000);
    assert_eq!(find(&mut BroadPhase::new(), &scene), expected);
}

#[test]
fn points_match_brute_force() {
    let mut rng = Rng(51);
    let mut scene = Scene::default();
    for _ in 0..2000 {
        // Integer-ish positions so that many points coincide and touch.
        let p = Vec2::new(rng.below(30) as f32 * 0.5, rng.below(30) as f32 * 0.5);
        scene.push(Aabb::new(p, p), random_kind(&mut rng));
    }
    assert_matches_brute_force(&scene);
    // A few sized boxes among the points: points must not drive the cell size.
    for _ in 0..50 {
        let c = Vec2::new(rng.range(0.0, 15.0), rng.range(0.0, 15.0));
        scene.push(boxed(c, 0.5, 0.5), SlotKind::Dynamic);
    }
    assert_matches_brute_force(&scene);
}

#[test]
fn exactly_touching_boxes_on_cell_borders_match_brute_force() {
    // Unit boxes on integer coordinates: edges and corners touch exactly on cell borders.
    let mut rng = Rng(61);
    let mut scene = Scene::default();
    for y in 0..40 {
        for x in 0..40 {
            let min = Vec2::new(x as f32, y as f32);
            scene.push(
                Aabb::new(min, min + Vec2::new(1.0, 1.0)),
                random_kind(&mut rng),
            );
        }
    }
    assert_matches_brute_force(&scene);
}

#[test]
fn pyramid_and_circles_match_brute_force() {
    assert_matches_brute_force(&pyramid_scene(true));
    assert_matches_brute_force(&circles_scene());
}

#[test]
fn empty_inputs_give_no_pairs() {
    let mut bp = BroadPhase::new();
    let mut pairs = vec![(1, 2)];
    bp.find_pairs(&Scene::default().proxies(), &mut pairs);
    assert!(pairs.is_empty());

    let mut holes = Scene::default();
    for _ in 0..100 {
        holes.push(boxed(Vec2::ZERO, 1.0, 1.0), SlotKind::Empty);
    }
    bp.find_pairs(&holes.proxies(), &mut pairs);
    assert!(pairs.is_empty());
    assert_eq!(bp.grid_entry_count(), 0);
}

#[test]
fn no_pairs_without_a_dynamic_body() {
    let mut scene = Scene::default();
    for kind in [
        SlotKind::Fixed,
        SlotKind::Kinematic,
        SlotKind::Fixed,
        SlotKind::Kinematic,
    ] {
        scene.push(boxed(Vec2::ZERO, 1.0, 1.0), kind);
    }
    assert!(find(&mut BroadPhase::new(), &scene).is_empty());
    scene.push(boxed(Vec2::ZERO, 1.0, 1.0), SlotKind::Dynamic);
    assert_eq!(
        find(&mut BroadPhase::new(), &scene),
        [(0, 4), (1, 4), (2, 4), (3, 4)]
    );
}

/// A call with no dynamic proxy (every body put on a layer no mask takes) answers no pairs
/// without touching the kept pairs: once the kinds are back, they answer again, with no
/// rebuild, and like brute force.
#[test]
fn a_call_without_dynamic_proxies_keeps_the_kept_pairs() {
    let scene = mixed_scene(31, 1500, Vec2::ZERO, 60.0);
    let mut bp = BroadPhase::new();
    let expected = brute_force(&scene.proxies());
    assert!(!expected.is_empty());
    assert_eq!(find(&mut bp, &scene), expected);
    let mut idle = scene.clone();
    for kind in &mut idle.kinds {
        if *kind == SlotKind::Dynamic {
            *kind = SlotKind::Empty;
        }
    }
    assert!(find(&mut bp, &idle).is_empty());
    assert_eq!(find(&mut bp, &scene), expected);
    assert_eq!(bp.rebuild_count(), 1);
}

#[test]
fn reused_buffers_give_the_same_result() {
    let scenes = [
        mixed_scene(71, 3000, Vec2::ZERO, 200.0),
        pyramid_scene(true),
        mixed_scene(72, 500, Vec2::new(1e5, 0.0), 20.0),
        Scene::default(),
        mixed_scene(71, 3000, Vec2::ZERO, 200.0),
    ];
    let mut bp = BroadPhase::new();
    let mut pairs = Vec::new();
    for scene in &scenes {
        let fresh = find(&mut BroadPhase::new(), scene);
        bp.find_pairs(&scene.proxies(), &mut pairs);
        assert_eq!(pairs, fresh);
        bp.find_pairs(&scene.proxies(), &mut pairs);
        assert_eq!(pairs, fresh);
    }
}

#[test]
fn thread_count_does_not_change_the_result() {
    let scenes = [circles_scene(), mixed_scene(81, 20_000, Vec2::ZERO, 600.0)];
    for scene in &scenes {
        let mut results = Vec::new();
        for threads in [1, 2, 4] {
            let pool = rayon::ThreadPoolBuilder::new()
                .num_threads(threads)
                .build()
                .unwrap();
            results.push(pool.install(|| find(&mut BroadPhase::new(), scene)));
        }
        assert!(!results[0].is_empty());
        assert_eq!(results[0], results[1]);
        assert_eq!(results[0], results[2]);
    }
}

#[test]
fn ground_is_kept_out_of_the_grid() {
    let mut bp = BroadPhase::new();
    find(&mut bp, &pyramid_scene(false));
    let boxes_only = bp.grid_entry_count();
    // A fresh broadphase: its grid is built the same way as the first one's.
    let mut bp = BroadPhase::new();
    let with_ground = find(&mut bp, &pyramid_scene(true));
    assert_eq!(bp.grid_entry_count(), boxes_only);
    assert_eq!(bp.large_proxy_count(), 1);
    // Every 1 m box sits in at most 4 cells, and the ground still meets the bottom row.
    assert!(boxes_only <= 4 * 5050);
    assert_eq!(with_ground.iter().filter(|&&(a, _)| a == 0).count(), 100);
}

#[test]
fn one_huge_body_does_not_set_the_cell_size() {
    let mut bp = BroadPhase::new();
    find(&mut bp, &pyramid_scene(true));
    assert!(
        (1.0..=4.0).contains(&bp.cell_size()),
        "cell size {}",
        bp.cell_size()
    );
}

/// Moves every non-static proxy of `scene` to its `home` box shifted by up to 5% of its size,
/// well inside the fat margin.
fn jitter(scene: &mut Scene, home: &[Aabb], rng: &mut Rng) {
    for (i, (aabb, home)) in scene.aabbs.iter_mut().zip(home).enumerate() {
        if scene.kinds[i] != SlotKind::Fixed {
            let e = home.extents();
            let d = Vec2::new(rng.range(-0.05, 0.05), rng.range(-0.05, 0.05)) * e.x.max(e.y);
            *aabb = Aabb::new(home.min + d, home.max + d);
        }
    }
}

/// One broadphase over a jittering scene, call after call: the jitters stay inside the fat
/// margin and are answered from the kept pairs, and every 5th call one change: a proxy with
/// pairs moves far away (refitted: its pairs found again, the others kept), or goes to sleep
/// (None), or loses its layer or its mask (each rebuilds the grid). Every answer matches brute
/// force, and only the changes refit or rebuild.
#[test]
fn kept_pairs_answer_moving_scenes_like_brute_force() {
    let mut rng = Rng(77);
    let mut scene = mixed_scene(5, 1500, Vec2::ZERO, 60.0);
    let mut home = scene.aabbs.clone();
    let mut bp = BroadPhase::new();
    let (mut changes, mut moves) = (0, 0);
    for call in 1..=80 {
        let got = find(&mut bp, &scene);
        assert_eq!(got, brute_force(&scene.proxies()), "call {call}");
        assert_eq!(bp.rebuild_count(), 1 + changes, "call {call}");
        assert_eq!(bp.refit_count(), moves, "call {call}");
        jitter(&mut scene, &home, &mut rng);
        if call % 5 == 0 {
            // A proxy that has pairs now: each change below takes them all away. Not a static
            // one, whose move rebuilds the grid where static proxies have a grid of their own.
            let (a, b) = got[rng.below(got.len())];
            let a = if scene.kinds[a as usize] == SlotKind::Fixed {
                b
            } else {
                a
            } as usize;
            match (call / 5) % 4 {
                0 => {
                    let far = Vec2::new(1e4, 1e4);
                    home[a] = Aabb::new(home[a].min + far, home[a].max + far);
                    scene.aabbs[a] = home[a];
                    moves += 1;
                    continue;
                }
                1 => scene.kinds[a] = SlotKind::Empty,
                2 => scene.layers[a] = 0,
                _ => scene.masks[a] = 0,
            }
            changes += 1;
        }
    }
}

/// A large box ploughing through a block of resting small ones (the smash scene's start): the
/// few proxies that leave their fat boxes each call are refitted, never the whole grid
/// rebuilt, and every answer matches brute force, pairs of two refitted proxies included.
#[test]
fn a_few_movers_refit_the_kept_pairs_like_brute_force() {
    let mut scene = Scene::default();
    let big = Vec2::new(-12.0, 0.0);
    scene.push(boxed(big, 4.0, 4.0), SlotKind::Dynamic);
    // Overlaps the big box all along, so the two movers pair with each other too.
    let mover = Vec2::new(-8.5, 3.5);
    scene.push(boxed(mover, 0.3, 0.3), SlotKind::Kinematic);
    for i in 0..60 {
        for j in 0..40 {
            let c = Vec2::new(0.4 * i as f32, 0.4 * (j as f32 - 20.0));
            scene.push(boxed(c, 0.2, 0.2), SlotKind::Dynamic);
        }
    }
    let mut bp = BroadPhase::new();
    for call in 0..40 {
        let t = call as f32;
        scene.aabbs[0] = boxed(big + Vec2::new(0.9 * t, 0.0), 4.0, 4.0);
        scene.aabbs[1] = boxed(mover + Vec2::new(0.9 * t, -0.1 * t), 0.3, 0.3);
        let got = find(&mut bp, &scene);
        assert_eq!(got, brute_force(&scene.proxies()), "call {call}");
        assert_eq!(bp.rebuild_count(), 1, "call {call}");
    }
    assert!(bp.refit_count() >= 30, "{} refits", bp.refit_count());
}

/// A settling pile: every call a different few dozen proxies (2% of them) leave their fat boxes,
/// some for a neighbour's place, some by a jump across the scene, while the rest jitter inside
/// theirs. The movers are refitted through the grid's cells and paired with each other
/// directly, and the grid is rebuilt only once a sixteenth of the proxies have been refitted
/// since it was built. Every answer matches brute force.
#[test]
fn many_movers_refit_through_the_grid_like_brute_force() {
    let mut rng = Rng(91);
    let mut scene = mixed_scene(9, 2000, Vec2::ZERO, 60.0);
    let mut home = scene.aabbs.clone();
    let mut bp = BroadPhase::new();
    let calls = 60;
    for call in 1..=calls {
        let got = find(&mut bp, &scene);
        assert_eq!(got, brute_force(&scene.proxies()), "call {call}");
        jitter(&mut scene, &home, &mut rng);
        for k in 0..40 {
            let a = rng.below(scene.aabbs.len());
            if scene.kinds[a] == SlotKind::Fixed {
                continue;
            }
            let target = if k % 4 == 0 {
                Vec2::new(rng.range(-30.0, 30.0), rng.range(-30.0, 30.0))
            } else {
                home[rng.below(home.len())].min
            };
            let shift = target - home[a].min;
            home[a] = Aabb::new(home[a].min + shift, home[a].max + shift);
            scene.aabbs[a] = home[a];
        }
    }
    // About 40 movers a call against 125 off-grid proxies allowed: a rebuild every few calls.
    assert!(
        bp.refit_count() >= calls as u64 / 2,
        "{} refits",
        bp.refit_count()
    );
    assert!(
        bp.rebuild_count() <= calls as u64 / 2,
        "{} rebuilds",
        bp.rebuild_count()
    );
}

/// A level of static tiles with bodies falling through it, call after call: the tiles are kept
/// in a grid of their own (the rebuilt grid holds only the moving proxies), and the answers
/// match brute force while the bodies fall (grid rebuilt), settle (kept pairs) and jump
/// (refitted), and while the level changes: a tile moved, removed or added, a tile turned
/// dynamic, and the level cut down to a few tiles (which the rebuilt grid holds again) and
/// grown back.
#[test]
fn static_tiles_have_a_grid_of_their_own_and_match_brute_force() {
    let mut rng = Rng(2024);
    let mut scene = Scene::default();
    let tile = |c: usize, r: usize| boxed(Vec2::new(c as f32 + 0.5, r as f32 + 0.5), 0.5, 0.5);
    let mut tiles = Vec::new();
    for c in 0..60 {
        for r in 0..(4 + c % 3) {
            tiles.push(scene.aabbs.len());
            // Every seventh tile only meets the first layer.
            let mask = if tiles.len() % 7 == 0 { 1 } else { u32::MAX };
            scene.push_filtered(tile(c, r), SlotKind::Fixed, 1, mask);
        }
    }
    let first_mover = scene.aabbs.len();
    for i in 0..400 {
        let c = Vec2::new(rng.range(0.0, 60.0), rng.range(8.0, 40.0));
        let half = rng.range(0.1, 0.6);
        let kind = if i % 25 == 0 {
            SlotKind::Kinematic
        } else {
            SlotKind::Dynamic
        };
        scene.push_filtered(boxed(c, half, half), kind, 1 << (i % 2), u32::MAX);
    }
    // Tiles created after the bodies, as a level loaded in parts would be.
    for c in 0..60 {
        tiles.push(scene.aabbs.len());
        scene.push(tile(c, 7), SlotKind::Fixed);
    }

    let mut bp = BroadPhase::new();
    for call in 0..60 {
        let got = find(&mut bp, &scene);
        assert_eq!(got, brute_force(&scene.proxies()), "call {call}");
        let static_count = scene
            .kinds
            .iter()
            .filter(|&&k| k == SlotKind::Fixed)
            .count();
        if static_count > 100 {
            let mut movers = Scene::default();
            for i in 0..scene.aabbs.len() {
                let kind = match scene.kinds[i] {
                    SlotKind::Fixed => SlotKind::Empty,
                    k => k,
                };
                movers.push_filtered(scene.aabbs[i], kind, scene.layers[i], scene.masks[i]);
            }
            // Fresh broadphases, which build their grids the same way.
            let (mut with, mut without) = (BroadPhase::new(), BroadPhase::new());
            find(&mut with, &scene);
            find(&mut without, &movers);
            assert_eq!(
                with.grid_entry_count(),
                without.grid_entry_count(),
                "call {call}"
            );
            assert!(with.grid_entry_count() > 0);
        }
        // Falling for the first half, then resting with a few jumping about.
        for i in first_mover..first_mover + 400 {
            let (v, j) = if call < 30 {
                (Vec2::new(rng.range(-0.2, 0.2), -1.0), 1.0)
            } else if rng.below(20) == 0 {
                (Vec2::new(rng.range(-3.0, 3.0), rng.range(-3.0, 3.0)), 1.0)
            } else {
                (Vec2::ZERO, 0.0)
            };
            let (min, max) = (scene.aabbs[i].min + v * j, scene.aabbs[i].max + v * j);
            scene.aabbs[i] = Aabb::new(min, max);
        }
        let some_tile = tiles[rng.below(tiles.len())];
        match call {
            10 | 35 => {
                let up = Vec2::new(0.0, 0.3);
                let t = &mut scene.aabbs[some_tile];
                *t = Aabb::new(t.min + up, t.max + up);
            }
            15 => scene.kinds[some_tile] = SlotKind::Empty,
            20 => scene.kinds[some_tile] = SlotKind::Fixed,
            25 => scene.kinds[some_tile] = SlotKind::Dynamic,
            40 => {
                for &t in &tiles[10..] {
                    scene.kinds[t] = SlotKind::Empty;
                }
            }
            45 => {
                for &t in &tiles {
                    scene.kinds[t] = SlotKind::Fixed;
                }
            }
            _ => {}
        }
    }
    assert!(bp.refit_count() > 0 && bp.rebuild_count() > 10);
}

/// A block of boxes drifting a box's width each call, then at rest: fat boxes are tried on
/// the first call and fail; while the block drifts, the probe of each run of plain grids sees
/// its boxes leave the fat boxes they would have had, and they are not tried again. Once the
/// block rests they are tried at the end of the run and kept. Every answer matches brute force.
#[test]
fn a_drifting_block_tries_fat_boxes_again_only_once_it_rests() {
    let mut scene = Scene::default();
    for i in 0..40 {
        for j in 0..30 {
            let c = Vec2::new(i as f32, j as f32);
            scene.push(boxed(c, 0.51, 0.51), SlotKind::Dynamic);
        }
    }
    let home = scene.aabbs.clone();
    let mut bp = BroadPhase::new();
    let (drift, rest) = (60, 40);
    for call in 0..drift + rest {
        let shift = Vec2::new(call.min(drift) as f32, 0.0);
        for (aabb, home) in scene.aabbs.iter_mut().zip(&home) {
            *aabb = Aabb::new(home.min + shift, home.max + shift);
        }
        let got = find(&mut bp, &scene);
        assert_eq!(got, brute_force(&scene.proxies()), "call {call}");
        if call < drift {
            assert_eq!(bp.fat_build_count(), 1, "call {call}");
        }
    }
    // Tried again within a run of plain grids after the block came to rest, and kept since.
    assert_eq!(bp.fat_build_count(), 2);
    assert!(bp.rebuild_count() <= drift + PLAIN_RUN_CALLS);
}

/// [`super::PLAIN_RUN`] as a count of calls, for the test above.
const PLAIN_RUN_CALLS: u64 = super::PLAIN_RUN as u64 + 2;

/// Compares, for every small proxy whose cells are at most two by two, the partners its cells
/// are looked up for at once (`Grid::quad_partners`) with those of the runs through them
/// (`Grid::small_partners`); returns how many it compared, and in which layout.
struct QuadAgainstRuns<'a, 'p> {
    grid: &'a super::Grid,
    proxies: &'a Proxies<'p>,
}

impl super::grid::CellSearch for QuadAgainstRuns<'_, '_> {
    type Output = (usize, &'static str);

    fn run<C: super::grid::Cells>(self, cells: C) -> (usize, &'static str) {
        let (grid, proxies) = (self.grid, self.proxies);
        let mut compared = 0;
        for a in 0..proxies.len() {
            let r = grid.rects[a];
            if grid.class[a] != super::Class::Small || !r.is_quad() {
                continue;
            }
            // Pairs already in the buffer, as other proxies leave them.
            let (mut runs, mut quad) = (vec![(0, 0); a % 3], vec![(0, 0); a % 3]);
            let slot = (a, &proxies.aabbs[a], proxies.kinds[a]);
            grid.small_partners(&cells, proxies, (slot, r, true), &mut runs);
            grid.quad_partners(&cells, proxies, (slot, r), &mut quad);
            assert_eq!(quad, runs, "proxy {a}, cells {r:?}");
            compared += 1;
        }
        (compared, std::any::type_name::<C>())
    }
}

#[test]
fn proxies_of_at_most_two_by_two_cells_find_the_partners_of_the_runs() {
    // Small and large boxes with filters around negative coordinates, spread ones (a hashed
    // table), unit boxes on cell borders, and a pyramid (every filter passing).
    let mut borders = Scene::default();
    let mut rng = Rng(5);
    for y in -15..15 {
        for x in -15..15 {
            let min = Vec2::new(x as f32 * 0.75, y as f32 * 0.75);
            let aabb = Aabb::new(min, min + Vec2::new(0.75, 0.75));
            borders.push(aabb, random_kind(&mut rng));
        }
    }
    let scenes = [
        mixed_scene(3, 3000, Vec2::new(-400.0, -250.0), 300.0),
        mixed_scene(4, 400, Vec2::new(-3.0e5, -1.0e5), 5.0e5),
        borders,
        pyramid_scene(true),
    ];
    let mut layouts = Vec::new();
    for scene in &scenes {
        let proxies = scene.proxies();
        let cell_size =
            super::grid::choose_cell_size(proxies.aabbs.iter(), proxies.len(), &mut Vec::new());
        // Cells smaller and larger than the broadphase's own, so that boxes of every cell
        // count meet.
        for scale in [1.0, 0.5, 0.75, 2.0] {
            let mut grid = super::Grid::default();
            grid.build(&proxies, cell_size * scale);
            let (compared, layout) = grid.cells.search(QuadAgainstRuns {
                grid: &grid,
                proxies: &proxies,
            });
            assert!(
                compared > proxies.len() / 10,
                "{compared} of {}",
                proxies.len()
            );
            layouts.push(layout);
        }
    }
    assert!(layouts.iter().any(|l| l.contains("WindowCells")));
    assert!(layouts.iter().any(|l| l.contains("HashedCells")));
}
