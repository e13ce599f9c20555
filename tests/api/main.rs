//! The public API: every call's contract, events, hooks, snapshots, settings, and the layout
//! of `src/`.

#[path = "../common/mod.rs"]
mod common;

mod bad_input;
mod body_control;
mod contact_events;
mod debug_draw;
mod hooks;
mod joint_control;
mod layout;
mod public_api;
mod sensors;
mod settings;
mod sleep_events;
mod snapshot_bytes;
mod snapshots;
mod stepper;
mod tracy_version;
mod user_data;
