//! Palette output: animated GIFs and small indexed PNGs. Pictures for these are drawn without
//! anti-aliasing, so every pixel is a colour of the renderer's fixed palette and maps to its
//! index exactly: no colour quantization, and the flat colours compress well.

use super::render::{palette, Rgb};
use std::collections::HashMap;
use std::fs::File;
use std::io::BufWriter;
use tiny_skia::Pixmap;

/// A GIF being written, frame by frame.
pub struct Animation {
    encoder: gif::Encoder<BufWriter<File>>,
    indexer: Indexer,
    /// Hundredths of a second each frame shows.
    delay: u16,
    size: (u16, u16),
    path: String,
}

impl Animation {
    /// Starts `path`, a looping animation of `width` x `height` frames shown `delay` hundredths
    /// of a second each.
    pub fn create(path: &str, width: u32, height: u32, delay: u16) -> Result<Animation, String> {
        let size = (
            u16::try_from(width).map_err(|_| format!("{path}: GIF width {width} > 65535"))?,
            u16::try_from(height).map_err(|_| format!("{path}: GIF height {height} > 65535"))?,
        );
        let indexer = Indexer::new();
        let file = File::create(path).map_err(|e| format!("{path}: {e}"))?;
        let mut encoder = gif::Encoder::new(BufWriter::new(file), size.0, size.1, &indexer.flat())
            .map_err(|e| format!("{path}: {e}"))?;
        encoder
            .set_repeat(gif::Repeat::Infinite)
            .map_err(|e| format!("{path}: {e}"))?;
        Ok(Animation {
            encoder,
            indexer,
            delay,
            size,
            path: path.to_string(),
        })
    }

    /// Appends a frame; `pixmap` must have the animation's size.
    pub fn push(&mut self, pixmap: &Pixmap) -> Result<(), String> {
        let (w, h) = self.size;
        if (pixmap.width(), pixmap.height()) != (w as u32, h as u32) {
            return Err(format!("{}: frame size changed", self.path));
        }
        let pixels = self.indexer.indices(pixmap);
        let mut frame = gif::Frame::from_indexed_pixels(w, h, pixels, None);
        frame.delay = self.delay;
        self.encoder
            .write_frame(&frame)
            .map_err(|e| format!("{}: {e}", self.path))
    }

    /// Ends the animation and flushes it to its file; returns the file's path.
    pub fn finish(self) -> Result<String, String> {
        let path = self.path;
        let mut file = self
            .encoder
            .into_inner()
            .map_err(|e| format!("{path}: {e}"))?;
        std::io::Write::flush(&mut file).map_err(|e| format!("{path}: {e}"))?;
        Ok(path)
    }
}

/// Maps pixels to indices of the renderer's palette.
struct Indexer {
    colors: Vec<Rgb>,
    /// Index of each colour met so far (the renderer paints only palette colours, but blending
    /// could produce others; those take the nearest palette entry).
    index: HashMap<Rgb, u8>,
}

impl Indexer {
    fn new() -> Indexer {
        let colors = palette();
        let index = colors
            .iter()
            .enumerate()
            .map(|(i, &c)| (c, i as u8))
            .collect();
        Indexer { colors, index }
    }

    /// The palette as RGB bytes, padded to a power-of-two count as GIF requires.
    fn flat(&self) -> Vec<u8> {
        let mut flat: Vec<u8> = self.colors.iter().flatten().copied().collect();
        flat.resize(3 * self.colors.len().next_power_of_two(), 0);
        flat
    }

    fn indices(&mut self, pixmap: &Pixmap) -> Vec<u8> {
        let mut out = Vec::with_capacity(pixmap.pixels().len());
        for p in pixmap.pixels() {
            let c = p.demultiply();
            let rgb = [c.red(), c.green(), c.blue()];
            let i = match self.index.get(&rgb) {
                Some(&i) => i,
                None => {
                    let i = nearest(&self.colors, rgb);
                    self.index.insert(rgb, i);
                    i
                }
            };
            out.push(i);
        }
        out
    }
}

/// Writes `pixmap` as an 8-bit indexed PNG over the renderer's palette: a quarter of the
/// bytes of RGBA before compression, and far smaller after it.
pub fn save_indexed_png(pixmap: &Pixmap, path: &str) -> Result<(), String> {
    let mut indexer = Indexer::new();
    let pixels = indexer.indices(pixmap);
    let err = |e: &dyn std::fmt::Display| format!("{path}: {e}");
    let file = File::create(path).map_err(|e| err(&e))?;
    let mut encoder = png::Encoder::new(BufWriter::new(file), pixmap.width(), pixmap.height());
    encoder.set_color(png::ColorType::Indexed);
    encoder.set_depth(png::BitDepth::Eight);
    encoder.set_palette(indexer.flat());
    encoder.set_compression(png::Compression::High);
    let mut writer = encoder.write_header().map_err(|e| err(&e))?;
    writer.write_image_data(&pixels).map_err(|e| err(&e))?;
    writer.finish().map_err(|e| err(&e))
}

fn nearest(colors: &[Rgb], c: Rgb) -> u8 {
    let distance = |p: &Rgb| -> i32 { (0..3).map(|k| (p[k] as i32 - c[k] as i32).pow(2)).sum() };
    let best = (0..colors.len()).min_by_key(|&i| distance(&colors[i]));
    best.unwrap_or(0) as u8
}
