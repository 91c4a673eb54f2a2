//! The egui panel: live statistics (frame time and its graph, the CPU split, GPU time,
//! instances per LOD level, draw calls, backend, adapter, skinning path and why, shadows,
//! ground) and the
//! controls (agents, LOD preset, distances and rates, skinning path, shadows, the view (shaded
//! or motion vectors), backend restart, pause, time scale, LOD colours, freezing LOD, vsync).

use egui::{Color32, RichText};

use super::scene::{Graphics, MAX_AGENTS, Picture, Scene, SkinningChoice};
use crate::crowd::{IMPOSTOR_COLOUR, LIVE_COLOUR, LOD_COLOURS, stats_level_name};
use crate::render::BackendChoice;
use crate::render::{Shadows, shadows_choice};

/// What the panel asks the window to do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PanelActions {
    /// Rebuild the device, surface and renderer on `settings.backend`.
    pub restart_backend: bool,
}

fn ms(seconds: f64) -> String {
    format!("{:.2} ms", seconds * 1e3)
}

fn lod_colour(level: usize) -> Color32 {
    let c = LOD_COLOURS[level.min(LOD_COLOURS.len() - 1)];
    Color32::from_rgb(c[0], c[1], c[2])
}

/// Draws the panel and applies its edits to `scene.settings`. `started_as` is the backend
/// setting the running device was opened with (`graphics.gpu` says which backend it is).
pub fn show(
    ctx: &egui::Context,
    scene: &mut Scene,
    graphics: &Graphics,
    started_as: BackendChoice,
) -> PanelActions {
    let mut actions = PanelActions::default();
    egui::Window::new("throng")
        .default_pos([12.0, 12.0])
        .default_width(300.0)
        .default_height(660.0)
        .vscroll(true)
        .show(ctx, |ui| {
            statistics(ui, scene, graphics);
            ui.separator();
            controls(ui, scene, graphics, started_as, &mut actions);
        });
    actions
}

fn statistics(ui: &mut egui::Ui, scene: &Scene, graphics: &Graphics) {
    let r = &scene.last;
    let fps = if r.frame_seconds > 0.0 {
        1.0 / r.frame_seconds
    } else {
        0.0
    };
    ui.label(RichText::new(format!("frame {} ({fps:.0} fps)", ms(r.frame_seconds))).strong());
    frame_graph(ui, scene);
    let u = &r.update;
    let cpu = u.simulate_seconds + u.lod_seconds + r.render.upload_seconds;
    egui::Grid::new("times").num_columns(2).show(ui, |ui| {
        ui.label("CPU: simulation");
        ui.label(ms(u.simulate_seconds));
        ui.end_row();
        ui.label("CPU: LOD + culling");
        ui.label(ms(u.lod_seconds));
        ui.end_row();
        ui.label("CPU: upload");
        ui.label(ms(r.render.upload_seconds));
        ui.end_row();
        ui.label("CPU: total")
            .on_hover_text("simulation + LOD + culling + upload");
        ui.label(RichText::new(ms(cpu)).strong());
        ui.end_row();
        ui.label("CPU skinning");
        ui.label(ms(r.render.cpu_skin_seconds));
        ui.end_row();
        let how = match scene.live.as_ref() {
            Ok(t) => match t.why_baked() {
                None => "the hybrid path's live agents: their animations evaluated live (states' \
                         blend trees, clips, as baked), then foot IK"
                    .to_string(),
                Some(why) => format!(
                    "the hybrid path's live agents: posed from the bake's matrices, then foot \
                     IK (not evaluated live: {why})"
                ),
            },
            Err(e) => format!("no live tier: {e}"),
        };
        ui.label("CPU: live tier").on_hover_text(how);
        ui.label(ms(r.live.seconds));
        ui.end_row();
        ui.label("GPU: crowd pass");
        ui.label(r.render.gpu_seconds.map_or("no timestamps".into(), ms));
        ui.end_row();
        ui.label("submit to done")
            .on_hover_text("wall time from submitting the frame until the device finished it");
        ui.label(ms(r.render.submit_seconds));
        ui.end_row();
    });
    ui.separator();
    egui::Grid::new("counts").num_columns(2).show(ui, |ui| {
        ui.label("agents");
        ui.label(u.agents.to_string());
        ui.end_row();
        ui.label("visible");
        ui.label(u.visible.to_string());
        ui.end_row();
        for (level, n) in u
            .per_level
            .iter()
            .enumerate()
            .take(graphics.renderer.levels() as usize)
        {
            ui.label(RichText::new(stats_level_name(level)).color(lod_colour(level)));
            ui.label(n.to_string());
            ui.end_row();
        }
        let c = IMPOSTOR_COLOUR;
        let why = graphics.renderer.impostors_unavailable();
        ui.label(RichText::new("impostors").color(Color32::from_rgb(c[0], c[1], c[2])))
            .on_hover_text(match why {
                None => "agents drawn as animated impostors (white in LOD colours)".to_string(),
                Some(why) => format!("drawn with the last mesh level: {why}"),
            });
        ui.label(u.impostors.to_string());
        ui.end_row();
        let c = LIVE_COLOUR;
        ui.label(RichText::new("live (in LOD 0)").color(Color32::from_rgb(c[0], c[1], c[2])))
            .on_hover_text("agents the hybrid path posed live this frame (violet in LOD colours)");
        ui.label(r.live.agents.to_string());
        ui.end_row();
        ui.label("updated this frame");
        ui.label(u.due.to_string());
        ui.end_row();
        ui.label("records written");
        ui.label(r.render.records_written.to_string());
        ui.end_row();
        ui.label("draw calls");
        ui.label(r.render.draws.to_string());
        ui.end_row();
    });
    ui.separator();
    let info = &graphics.gpu.info;
    ui.label(format!("{:?}: {}", info.backend, info.name));
    ui.label(format!(
        "skinning: {} ({})",
        graphics.path.name(),
        graphics.path_reason
    ));
    let (shadows, why) = graphics.shadows(&scene.settings);
    ui.label(format!("shadows: {shadows} ({why})"));
    ui.label(format!(
        "ground: {} (--ground)",
        scene.crowd.settings().terrain
    ));
}

/// The frame-time graph: the last frames' times, with 16.7 and 33.3 ms lines.
fn frame_graph(ui: &mut egui::Ui, scene: &Scene) {
    let (rect, _) =
        ui.allocate_exact_size(egui::vec2(ui.available_width(), 60.0), egui::Sense::hover());
    let painter = ui.painter_at(rect);
    painter.rect_filled(rect, 2.0, Color32::from_black_alpha(60));
    let top = scene.history.iter().copied().fold(40.0f32, f32::max);
    let y = |v: f32| rect.bottom() - (v / top).min(1.0) * rect.height();
    for guide in [16.7f32, 33.3] {
        painter.hline(
            rect.x_range(),
            y(guide),
            egui::Stroke::new(1.0, Color32::from_gray(90)),
        );
    }
    let n = super::scene::HISTORY as f32;
    let points: Vec<egui::Pos2> = scene
        .history
        .iter()
        .enumerate()
        .map(|(i, &v)| egui::pos2(rect.left() + i as f32 / n * rect.width(), y(v)))
        .collect();
    painter.add(egui::Shape::line(
        points,
        egui::Stroke::new(1.5, Color32::LIGHT_GREEN),
    ));
    painter.text(
        rect.left_top() + egui::vec2(4.0, 2.0),
        egui::Align2::LEFT_TOP,
        format!("{top:.0} ms"),
        egui::FontId::monospace(10.0),
        Color32::GRAY,
    );
}

/// The backend a device runs on, as the setting that opens it; `None` for backends throng
/// does not open.
fn running_choice(backend: wgpu::Backend) -> Option<BackendChoice> {
    match backend {
        wgpu::Backend::Vulkan => Some(BackendChoice::Vulkan),
        wgpu::Backend::Gl => Some(BackendChoice::Gl),
        _ => None,
    }
}

/// The label of a backend's radio button.
fn backend_label(choice: BackendChoice) -> &'static str {
    match choice {
        BackendChoice::Vulkan => "Vulkan",
        BackendChoice::Gl => "GL",
        BackendChoice::Auto => "auto",
    }
}

/// The label of the `auto` radio button: with the backend auto chose, "auto (Vulkan)", when
/// the running device was opened with `auto`; plain "auto" otherwise (what it would choose is
/// known only once a restart opens it).
fn auto_label(started_as: BackendChoice, running: wgpu::Backend) -> String {
    match (started_as, running_choice(running)) {
        (BackendChoice::Auto, Some(r)) => format!("auto ({})", backend_label(r)),
        (BackendChoice::Auto, None) => format!("auto ({running:?})"),
        _ => "auto".into(),
    }
}

/// The restart button's label: which backend it restarts on when that differs from the
/// running device's setting ("restart on GL"), else plain "restart".
fn restart_label(selected: BackendChoice, started_as: BackendChoice) -> String {
    if selected == started_as {
        "restart".into()
    } else {
        format!("restart on {}", backend_label(selected))
    }
}

fn controls(
    ui: &mut egui::Ui,
    scene: &mut Scene,
    graphics: &Graphics,
    started_as: BackendChoice,
    actions: &mut PanelActions,
) {
    let s = &mut scene.settings;
    ui.add(
        egui::Slider::new(&mut s.count, 1..=MAX_AGENTS)
            .logarithmic(true)
            .text("agents"),
    );
    egui::ComboBox::from_label("LOD preset")
        .selected_text(s.preset.clone())
        .show_ui(ui, |ui| {
            for name in scene.presets.names() {
                if ui.selectable_label(s.preset == name, name).clicked() {
                    s.preset = name.to_string();
                    if let Some(p) = scene.presets.get(name) {
                        s.policy = p.clone();
                    }
                }
            }
        });
    let before = s.policy.clone();
    let levels = graphics.renderer.levels() as usize;
    for (i, d) in s
        .policy
        .distances
        .iter_mut()
        .enumerate()
        .take(levels.saturating_sub(1))
    {
        ui.add(
            egui::Slider::new(d, 1.0..=500.0)
                .logarithmic(true)
                .suffix(" m")
                .text(format!("LOD {} from", i + 1)),
        );
    }
    // Distances stay ascending: a level starts no nearer than the one before it.
    for i in 1..s.policy.distances.len() {
        s.policy.distances[i] = s.policy.distances[i].max(s.policy.distances[i - 1]);
    }
    for (level, rate) in s.policy.rates.iter_mut().enumerate().take(levels) {
        ui.add(egui::Slider::new(rate, 1..=16).text(format!("LOD {level}: every n-th frame")));
    }
    ui.add(
        egui::Slider::new(&mut s.policy.offscreen_rate, 1..=32)
            .text("off screen: every n-th frame"),
    );
    ui.checkbox(&mut s.policy.culling, "frustum culling");
    if s.policy != before {
        s.preset = "custom".into();
    }
    ui.horizontal(|ui| {
        ui.label("skinning");
        ui.radio_value(&mut s.skinning, SkinningChoice::Auto, "auto");
        ui.radio_value(&mut s.skinning, SkinningChoice::Gpu, "GPU");
        ui.radio_value(&mut s.skinning, SkinningChoice::Cpu, "CPU");
        ui.radio_value(&mut s.skinning, SkinningChoice::Hybrid, "hybrid")
            .on_hover_text(
                "the GPU path plus a live tier: the LOD preset's nearest agents (live_max within \
                 live_distance) posed on the CPU each frame with foot IK on the ground",
            );
    });
    // Shadows: `auto` is the device's default, named.
    ui.horizontal(|ui| {
        ui.label("shadows");
        let default = shadows_choice(None, &graphics.gpu).0;
        ui.radio_value(&mut s.shadows, None, format!("auto ({default})"));
        for kind in Shadows::ALL {
            ui.radio_value(&mut s.shadows, Some(kind), kind.name());
        }
    });
    // The picture: the motion vectors rebuild the renderer with a velocity attachment.
    ui.horizontal(|ui| {
        ui.label("view");
        for picture in [Picture::Shaded, Picture::Motion] {
            ui.radio_value(&mut s.picture, picture, picture.name());
        }
    });
    // The selected button is the setting a restart opens; the one the device was opened with
    // (with what `auto` chose) shows the backend that is running.
    let running = graphics.gpu.info.backend;
    ui.horizontal(|ui| {
        ui.label("backend");
        ui.radio_value(
            &mut s.backend,
            BackendChoice::Auto,
            auto_label(started_as, running),
        );
        ui.radio_value(&mut s.backend, BackendChoice::Vulkan, "Vulkan");
        ui.radio_value(&mut s.backend, BackendChoice::Gl, "GL");
    });
    if ui
        .button(restart_label(s.backend, started_as))
        .on_hover_text(format!(
            "rebuild the device on the selected backend (running: {running:?})"
        ))
        .clicked()
    {
        actions.restart_backend = true;
    }
    ui.horizontal(|ui| {
        ui.checkbox(&mut s.paused, "pause");
        ui.add(egui::Slider::new(&mut s.time_scale, 0.0..=4.0).text("time scale"));
    });
    ui.checkbox(&mut s.lod_colours, "LOD colours")
        .on_hover_text("tint every instance by its LOD level");
    ui.checkbox(&mut s.head_look, "live heads look at the camera")
        .on_hover_text(
            "hybrid path: live agents turn their heads toward the camera (up to 70° aside, 30° up or down)",
        );
    ui.checkbox(&mut s.freeze_lod, "freeze LOD and culling")
        .on_hover_text("keep levels and culling as they are, to fly out and look at them");
    ui.checkbox(&mut s.vsync, "vsync");
    ui.label(
        RichText::new(
            "left drag: turn · right drag: pan · wheel: zoom · WASD/QE: fly (Shift: faster)",
        )
        .small(),
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn auto_names_the_backend_it_chose() {
        assert_eq!(
            auto_label(BackendChoice::Auto, wgpu::Backend::Vulkan),
            "auto (Vulkan)"
        );
        assert_eq!(
            auto_label(BackendChoice::Auto, wgpu::Backend::Gl),
            "auto (GL)"
        );
    }

    #[test]
    fn auto_names_nothing_when_the_device_was_opened_on_a_named_backend() {
        // Running GL because GL was asked for says nothing about what auto would choose.
        assert_eq!(auto_label(BackendChoice::Gl, wgpu::Backend::Gl), "auto");
        assert_eq!(
            auto_label(BackendChoice::Vulkan, wgpu::Backend::Vulkan),
            "auto"
        );
    }

    #[test]
    fn running_backends_map_to_their_settings() {
        assert_eq!(
            running_choice(wgpu::Backend::Vulkan),
            Some(BackendChoice::Vulkan)
        );
        assert_eq!(running_choice(wgpu::Backend::Gl), Some(BackendChoice::Gl));
        assert_eq!(running_choice(wgpu::Backend::Metal), None);
    }

    #[test]
    fn restart_says_where_it_goes_when_the_selection_changed() {
        assert_eq!(
            restart_label(BackendChoice::Auto, BackendChoice::Auto),
            "restart"
        );
        assert_eq!(
            restart_label(BackendChoice::Gl, BackendChoice::Auto),
            "restart on GL"
        );
        assert_eq!(
            restart_label(BackendChoice::Vulkan, BackendChoice::Gl),
            "restart on Vulkan"
        );
        assert_eq!(
            restart_label(BackendChoice::Auto, BackendChoice::Vulkan),
            "restart on auto"
        );
    }
}
