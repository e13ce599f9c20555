//! Checks a screenshot of the interactive viewer (`examples/viewer.rs --screenshot FILE`) for
//! drawn bodies. The viewer needs an X display and the `viewer` feature, so `.ci/run` takes the
//! screenshot under Xvfb and runs this ignored test on it:
//!
//! ```text
//! BATCH2D_VIEWER_SCREENSHOT=FILE cargo test --release --test viewer_screenshot -- --ignored
//! ```

use std::collections::HashMap;

/// Share of the scene area, below the status lines, that the bodies must cover. The playground
/// (`--scene 6`, the default) covers well over this: a ground across the window, a pyramid and
/// a dozen balls; a window that showed nothing, or only the background, covers none.
const MIN_COVER: f64 = 0.01;

#[test]
#[ignore = "needs a screenshot of the viewer: see .ci/run"]
fn the_viewer_draws_bodies() {
    let path = std::env::var("BATCH2D_VIEWER_SCREENSHOT")
        .expect("BATCH2D_VIEWER_SCREENSHOT must name the viewer's screenshot (a PNG)");
    let file = std::fs::File::open(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut reader = png::Decoder::new(std::io::BufReader::new(file))
        .read_info()
        .unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut pixels = vec![0; reader.output_buffer_size().expect("image size")];
    let info = reader.next_frame(&mut pixels).expect("a PNG frame");
    assert_eq!(info.color_type, png::ColorType::Rgb, "{path}");
    assert_eq!(info.bit_depth, png::BitDepth::Eight, "{path}");
    let (width, height) = (info.width as usize, info.height as usize);
    // The status lines fill the top of the window: look below its first fifth.
    let scene = &pixels[height / 5 * width * 3..height * width * 3];
    let mut counts: HashMap<[u8; 3], usize> = HashMap::new();
    for p in scene.chunks_exact(3) {
        *counts.entry([p[0], p[1], p[2]]).or_default() += 1;
    }
    // The background is the most common colour; everything else is drawn.
    let (background, bare) = counts
        .iter()
        .max_by_key(|&(_, n)| *n)
        .map(|(c, n)| (*c, *n))
        .expect("pixels");
    let total = scene.len() / 3;
    let drawn = total - bare;
    let cover = drawn as f64 / total as f64;
    println!(
        "{path}: {width}x{height}, background {background:?}, {drawn} of {total} scene pixels \
         drawn ({:.1}%), {} colours",
        100.0 * cover,
        counts.len()
    );
    assert!(
        cover >= MIN_COVER,
        "only {:.2}% of the scene area is drawn: no bodies on screen?",
        100.0 * cover
    );
    // Static and dynamic bodies are filled in different colours, edged in a third.
    assert!(counts.len() >= 3, "only {} colours", counts.len());
}
