//! Rollback netcode between two simulated peers, in one process.
//!
//! ```text
//! cargo run --release --example rollback -- [--frames N] [--threads N]
//! ```
//!
//! 2000 boxes and circles lie in a walled arena; each peer steers a heavy disc through them
//! with its player's input. A peer knows its own input at once and the other's only 3 to 8
//! frames later (a delay drawn per message), so it predicts the other's input (the last one
//! it received), steps on, and when the real input differs from the prediction, restores the
//! snapshot of that frame and simulates the frames since again. Every 60 frames the peers
//! compare the state hash of a frame both have all the inputs of: they must agree bit for bit.
//! At the end it prints what the re-simulation cost per frame.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use batch2d::{BodyDef, BodyId, Shape, ShapeDef, Snapshot, Vec2, World, WorldSettings};

const DT: f32 = 1.0 / 60.0;
/// The longest delay of a message, in frames: every frame older than this is confirmed.
const MAX_DELAY: u64 = 8;
const MIN_DELAY: u64 = 3;
const PLAYERS: usize = 2;

/// One player's input for one frame: a direction to push in, 0 to 8 (0: none).
type Input = u8;

/// The force an input pushes a player's disc with.
fn push(input: Input) -> Vec2 {
    if input == 0 {
        return Vec2::ZERO;
    }
    let angle = f32::from(input - 1) * std::f32::consts::FRAC_PI_4;
    Vec2::new(angle.cos(), angle.sin()) * 4000.0
}

/// A small deterministic generator (xorshift64): the players' inputs and the delays.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// The arena, the 2000 bodies and the players' discs; the same on both peers.
fn build(threads: usize) -> (World, [BodyId; PLAYERS]) {
    let mut world = World::new(WorldSettings {
        gravity: Vec2::ZERO,
        threads,
        ..WorldSettings::default()
    });
    let wall = |world: &mut World, at: Vec2, half: Vec2| {
        let shape = Shape::rect(half.x, half.y).unwrap();
        world
            .add_body(BodyDef::fixed().position(at), ShapeDef::new(shape))
            .unwrap();
    };
    wall(&mut world, Vec2::new(0.0, -31.0), Vec2::new(32.0, 1.0));
    wall(&mut world, Vec2::new(0.0, 31.0), Vec2::new(32.0, 1.0));
    wall(&mut world, Vec2::new(-31.0, 0.0), Vec2::new(1.0, 32.0));
    wall(&mut world, Vec2::new(31.0, 0.0), Vec2::new(1.0, 32.0));
    for i in 0..2000 {
        let (row, col) = (i / 50, i % 50);
        let at = Vec2::new(-24.5 + col as f32, -19.5 + row as f32);
        let shape = match i % 2 {
            0 => Shape::rect(0.4, 0.4).unwrap(),
            _ => Shape::circle(0.4).unwrap(),
        };
        let def = BodyDef::dynamic()
            .position(at)
            .linear_damping(0.5)
            .angular_damping(0.5);
        world
            .add_body(def, ShapeDef::new(shape).friction(0.3))
            .unwrap();
    }
    let disc = |world: &mut World, x: f32| {
        let def = BodyDef::dynamic()
            .position(Vec2::new(x, 25.0))
            .linear_damping(2.0);
        let shape = ShapeDef::new(Shape::circle(1.5).unwrap()).density(10.0);
        world.add_body(def, shape).unwrap()
    };
    let players = [disc(&mut world, -10.0), disc(&mut world, 10.0)];
    (world, players)
}

/// One peer: its world, the inputs it knows or predicts, and a snapshot per recent frame.
struct Peer {
    me: usize,
    world: World,
    players: [BodyId; PLAYERS],
    /// The next frame to simulate.
    frame: u64,
    /// Per frame (from `base`), each player's input: known, or predicted (`known` false).
    inputs: VecDeque<[(Input, bool); PLAYERS]>,
    /// Per frame (from `base`), the snapshot taken before simulating it.
    snapshots: VecDeque<Snapshot>,
    /// Per frame (from `base`), the state hash after simulating it.
    hashes: VecDeque<u64>,
    /// The frame of the first entry of `inputs`, `snapshots` and `hashes`.
    base: u64,
    /// The last input received from the other player, used as the prediction.
    last_remote: Input,
    resimulated: u64,
    resim_time: Duration,
}

impl Peer {
    fn new(me: usize, threads: usize) -> Peer {
        let (world, players) = build(threads);
        Peer {
            me,
            world,
            players,
            frame: 0,
            inputs: VecDeque::new(),
            snapshots: VecDeque::new(),
            hashes: VecDeque::new(),
            base: 0,
            last_remote: 0,
            resimulated: 0,
            resim_time: Duration::ZERO,
        }
    }

    /// Simulates frame `self.frame` with the inputs listed for it.
    fn simulate(&mut self) {
        let i = (self.frame - self.base) as usize;
        for (player, &(input, _)) in self.inputs[i].iter().enumerate() {
            self.world
                .apply_force(self.players[player], push(input))
                .unwrap();
        }
        self.world.step(DT).unwrap();
        self.hashes.truncate(i);
        self.hashes.push_back(self.world.state_hash());
        self.frame += 1;
    }

    /// Runs the next frame with this peer's `local` input and the other's predicted.
    fn advance(&mut self, local: Input) {
        let mut inputs = [(self.last_remote, false); PLAYERS];
        inputs[self.me] = (local, true);
        self.inputs.push_back(inputs);
        self.snapshots.push_back(self.world.snapshot());
        self.simulate();
        // Frames older than the longest delay are confirmed: nothing rolls back to them.
        while self.frame - self.base > MAX_DELAY + 2 {
            self.inputs.pop_front();
            self.snapshots.pop_front();
            self.hashes.pop_front();
            self.base += 1;
        }
    }

    /// The other player's input for `frame` arrived: if it is not what was predicted, go back
    /// to that frame and simulate again up to the present.
    fn receive(&mut self, frame: u64, input: Input) {
        let other = 1 - self.me;
        self.last_remote = input;
        let i = (frame - self.base) as usize;
        let mispredicted = self.inputs[i][other].0 != input;
        // The prediction for the frames after it is this input too.
        for later in self.inputs.iter_mut().skip(i) {
            if !later[other].1 {
                later[other].0 = input;
            }
        }
        self.inputs[i][other] = (input, true);
        if mispredicted {
            let start = Instant::now();
            let now = self.frame;
            self.world.restore(&self.snapshots[i]).unwrap();
            self.frame = frame;
            while self.frame < now {
                if self.frame > frame {
                    let j = (self.frame - self.base) as usize;
                    self.snapshots[j] = self.world.snapshot();
                }
                self.simulate();
                self.resimulated += 1;
            }
            self.resim_time += start.elapsed();
        }
    }

    /// The state hash after `frame`, if this peer still keeps it.
    fn hash(&self, frame: u64) -> Option<u64> {
        let i = frame.checked_sub(self.base)?;
        self.hashes.get(i as usize).copied()
    }
}

fn main() {
    let mut frames: u64 = 600;
    let mut threads = 0;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = args.next().and_then(|v| v.parse().ok());
        match (arg.as_str(), value) {
            ("--frames", Some(n)) => frames = n,
            ("--threads", Some(n)) => threads = n as usize,
            _ => {
                eprintln!("usage: rollback [--frames N] [--threads N]");
                std::process::exit(2);
            }
        }
    }
    let mut peers = [Peer::new(0, threads), Peer::new(1, threads)];
    let mut players = [Rng(0x9e37_79b9_7f4a_7c15), Rng(0x2545_f491_4f6c_dd1d)];
    let mut network = Rng(0xda94_2042_e4dd_58b5);
    let mut input = [0; PLAYERS];
    // Messages in flight: (arrival frame, recipient, frame of the input, input).
    let mut in_flight: Vec<(u64, usize, u64, Input)> = Vec::new();
    let mut step_time = Duration::ZERO;
    let mut checks = 0;
    for frame in 0..frames {
        for (p, peer) in peers.iter_mut().enumerate() {
            // A player keeps a direction for a while, then picks another.
            if players[p].next().is_multiple_of(20) {
                input[p] = (players[p].next() % 9) as Input;
            }
            let start = Instant::now();
            peer.advance(input[p]);
            step_time += start.elapsed();
            let delay = MIN_DELAY + network.next() % (MAX_DELAY - MIN_DELAY + 1);
            in_flight.push((frame + delay, 1 - p, frame, input[p]));
        }
        // Deliver what arrives by the end of this frame, in the order it was sent.
        in_flight.retain(|&(arrival, to, sent, input)| {
            if arrival > frame {
                return true;
            }
            peers[to].receive(sent, input);
            false
        });
        if frame % 60 == 59 && frame > MAX_DELAY {
            let confirmed = frame - MAX_DELAY;
            let (a, b) = (peers[0].hash(confirmed), peers[1].hash(confirmed));
            assert!(
                a.is_some() && a == b,
                "desync at frame {confirmed}: {a:x?} vs {b:x?}"
            );
            checks += 1;
            println!(
                "frame {confirmed:5}: state hash {:016x} on both peers",
                a.unwrap()
            );
        }
    }
    let resimulated: u64 = peers.iter().map(|p| p.resimulated).sum();
    let resim_time: Duration = peers.iter().map(|p| p.resim_time).sum();
    let simulated = 2 * frames;
    println!(
        "{checks} checks agreed; {simulated} frames simulated by the peers, {resimulated} again after a misprediction \
         ({:.2} per frame)",
        resimulated as f64 / simulated as f64
    );
    println!(
        "per frame: {:.3} ms to predict (snapshot and step), {:.3} ms re-simulating (restore and steps)",
        step_time.as_secs_f64() * 1e3 / simulated as f64,
        resim_time.as_secs_f64() * 1e3 / simulated as f64
    );
}
