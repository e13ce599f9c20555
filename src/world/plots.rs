//! The world's counters as Tracy plots, one value each per step (only with the `tracy`
//! feature: without it this file is not compiled). Each is a length the world keeps anyway,
//! so plotting costs a few queue entries per step; memory is the one value read from the
//! system.

use crate::world::World;
use std::sync::Once;
use tracy_client::{plot, Client, PlotConfiguration, PlotFormat, PlotLineStyle};

impl World {
    /// Sends this step's counters to Tracy.
    pub(super) fn plot_counters(&self) {
        static CONFIGURE: Once = Once::new();
        CONFIGURE.call_once(configure_plots);
        plot!("bodies", self.bodies.len() as f64);
        plot!("awake bodies", self.sleep.moving.len() as f64);
        plot!("joints", self.joints.len() as f64);
        plot!("broad-phase pairs", self.pairs.len() as f64);
        plot!("touching contacts", self.contact_count() as f64);
        plot!("colors", self.graph.color_count() as f64);
        plot!("batches", self.graph.lanes.len() as f64);
        plot!("overflow constraints", self.graph.overflow.len() as f64);
        if let Some(bytes) = resident_bytes() {
            plot!("resident memory", bytes as f64);
        }
    }
}

/// Counts change in whole steps, so they are drawn as steps, not slopes; memory in bytes.
fn configure_plots() {
    let client = Client::running().expect("the world started the Tracy client");
    let counts = PlotConfiguration::default()
        .line_style(PlotLineStyle::Stepped)
        .fill(false);
    let names = [
        tracy_client::plot_name!("bodies"),
        tracy_client::plot_name!("awake bodies"),
        tracy_client::plot_name!("joints"),
        tracy_client::plot_name!("broad-phase pairs"),
        tracy_client::plot_name!("touching contacts"),
        tracy_client::plot_name!("colors"),
        tracy_client::plot_name!("batches"),
        tracy_client::plot_name!("overflow constraints"),
    ];
    for name in names {
        client.plot_config(name, counts.clone());
    }
    let memory = counts.format(PlotFormat::Memory);
    client.plot_config(tracy_client::plot_name!("resident memory"), memory);
}

/// The process's resident memory in bytes, from `/proc/self/status` (Linux); `None` elsewhere
/// or when it cannot be read. It counts everything the process holds, the world's buffers
/// and the allocator's free lists among them.
fn resident_bytes() -> Option<u64> {
    use std::io::Read;
    // A buffer on the stack keeps the read from allocating, which an allocation-tracking
    // build would record every step; the file is about 1.5 KiB, VmRSS in its first half.
    let mut buf = [0u8; 4096];
    let n = std::fs::File::open("/proc/self/status")
        .ok()?
        .read(&mut buf)
        .ok()?;
    let text = std::str::from_utf8(&buf[..n]).ok()?;
    let line = text.lines().find(|l| l.starts_with("VmRSS:"))?;
    // "VmRSS:     123456 kB"
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}
