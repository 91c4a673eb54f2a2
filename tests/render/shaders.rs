//! Every WGSL file in shaders/ parses and validates with naga, as the modules the renderer
//! builds from them (skinning.wgsl is prepended to the shaders that skin, lighting.wgsl to the
//! lit ones, instance.wgsl to the character ones). CPU only: no device.

use std::path::Path;

use throng::render::crowd::{
    CROWD_WGSL, GROUND_WGSL, IMPOSTOR_WGSL, INSTANCE_WGSL, LIGHTING_WGSL, SKINNING_WGSL,
};
use throng::render::pictures::parity::PARITY_WGSL;
use wgpu::naga;

fn validate(name: &str, source: &str) {
    let module = naga::front::wgsl::parse_str(source)
        .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
    naga::valid::Validator::new(
        naga::valid::ValidationFlags::all(),
        naga::valid::Capabilities::default(),
    )
    .validate(&module)
    .unwrap_or_else(|e| panic!("{name}: {}", e.emit_to_string(source)));
    assert!(
        !module.entry_points.is_empty()
            || ["skinning.wgsl", "lighting.wgsl", "instance.wgsl"].contains(&name),
        "{name}: no entry points"
    );
}

#[test]
fn every_shader_validates() {
    let modules = [
        ("skinning.wgsl", SKINNING_WGSL.to_string(), "skinning.wgsl"),
        ("lighting.wgsl", LIGHTING_WGSL.to_string(), "lighting.wgsl"),
        (
            "instance.wgsl",
            format!("{LIGHTING_WGSL}\n{INSTANCE_WGSL}"),
            "instance.wgsl",
        ),
        (
            "crowd.wgsl",
            format!("{SKINNING_WGSL}\n{LIGHTING_WGSL}\n{INSTANCE_WGSL}\n{CROWD_WGSL}"),
            "crowd.wgsl",
        ),
        (
            "impostor.wgsl",
            format!("{LIGHTING_WGSL}\n{INSTANCE_WGSL}\n{IMPOSTOR_WGSL}"),
            "impostor.wgsl",
        ),
        (
            "parity.wgsl",
            format!("{SKINNING_WGSL}\n{PARITY_WGSL}"),
            "parity.wgsl",
        ),
        (
            "motion_view.wgsl",
            throng::render::MOTION_VIEW_WGSL.to_string(),
            "motion_view.wgsl",
        ),
        (
            "ground.wgsl",
            format!("{LIGHTING_WGSL}\n{GROUND_WGSL}"),
            "ground.wgsl",
        ),
    ];
    for (name, source, _) in &modules {
        validate(name, source);
    }
    // Every file in shaders/ is one of them, and each is the file's current text.
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("shaders");
    let mut found = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "wgsl") {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let text = std::fs::read_to_string(&path).unwrap();
            let covered = modules
                .iter()
                .any(|(_, source, f)| *f == file && source.contains(text.trim()));
            assert!(covered, "{file} is not validated by this test");
            found += 1;
        }
    }
    assert_eq!(found, modules.len(), "shaders/ holds {found} WGSL files");
}

#[test]
fn a_broken_shader_is_caught() {
    let broken = format!("{SKINNING_WGSL}\nfn f() -> f32 {{ return rows_at(0u, 0u); }}");
    let parsed = naga::front::wgsl::parse_str(&broken);
    let rejected = match parsed {
        Err(_) => true,
        Ok(m) => naga::valid::Validator::new(
            naga::valid::ValidationFlags::all(),
            naga::valid::Capabilities::default(),
        )
        .validate(&m)
        .is_err(),
    };
    assert!(rejected, "a type error in WGSL went unnoticed");
}
