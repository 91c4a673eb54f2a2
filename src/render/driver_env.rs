//! Settings the graphics drivers read from the environment, decided before any driver is
//! loaded: the binary applies them first thing in `main`, while it has one thread (changing
//! the environment is only sound then).
//!
//! One so far: switching off Mesa's Vulkan device-select layer where its Wayland probe can
//! only fail, and fail loudly.

use std::ffi::OsString;

/// The variable that switches Mesa's device-select layer off (`NODEVICE_SELECT=1`, the
/// layer manifest's `disable_environment`: the Vulkan loader then does not load the layer).
pub const DEVICE_SELECT_OFF: (&str, &str) = ("NODEVICE_SELECT", "1");

/// Whether to switch off Mesa's Vulkan device-select layer for this process by setting
/// [`DEVICE_SELECT_OFF`] before the first Vulkan call; `var` reads the environment
/// (`|k| std::env::var_os(k)`).
///
/// The layer (`VK_LAYER_MESA_device_select`, implicit: on wherever Mesa's Vulkan drivers are
/// installed) reorders the GPUs so that the one driving the display comes first. wgpu enables
/// `VK_KHR_wayland_surface` on every Vulkan instance, so inside `vkEnumeratePhysicalDevices`
/// the layer asks Wayland which GPU that is with libwayland-client's `wl_display_connect`.
/// Where `XDG_RUNTIME_DIR` is unset (containers, CI, ssh, cron) libwayland cannot connect and
/// prints "error: XDG_RUNTIME_DIR is invalid or not set in the environment." on stderr, once
/// per enumeration (twice per device), although the run then succeeds.
///
/// True exactly when that would happen and the layer could learn nothing from Wayland:
/// `XDG_RUNTIME_DIR` is not an absolute path, `WAYLAND_DISPLAY` is not an absolute path and
/// `WAYLAND_SOCKET` is unset (libwayland needs no runtime directory for those), and the user
/// has neither set `NODEVICE_SELECT` nor chosen a GPU through the layer (`DRI_PRIME`,
/// `MESA_VK_DEVICE_SELECT`). Without the layer, [`Gpu::new`](super::Gpu::new)'s own ranking
/// (a real GPU before a software one) decides; what is lost is the layer's X11 guess of the
/// GPU driving the X screen, which matters only on machines with several GPUs of one kind.
pub fn quiet_device_select(var: impl Fn(&str) -> Option<OsString>) -> bool {
    let absolute = |name: &str| var(name).is_some_and(|v| v.to_string_lossy().starts_with('/'));
    let chosen = ["NODEVICE_SELECT", "DRI_PRIME", "MESA_VK_DEVICE_SELECT"]
        .iter()
        .any(|name| var(name).is_some());
    !chosen
        && !absolute("XDG_RUNTIME_DIR")
        && !absolute("WAYLAND_DISPLAY")
        && var("WAYLAND_SOCKET").is_none()
}

/// Switches Mesa's device-select layer off for this process where [`quiet_device_select`]
/// says so: the first thing a program's `main` does (throng's binary and its examples call
/// it), so that a run without a Wayland session prints no `XDG_RUNTIME_DIR` error lines.
///
/// # Safety
/// It sets an environment variable: call it while no other thread of the process exists,
/// before anything that may read the environment has started (as `std::env::set_var`).
pub unsafe fn quiet_drivers() {
    if quiet_device_select(|k| std::env::var_os(k)) {
        let (name, value) = DEVICE_SELECT_OFF;
        // SAFETY: the caller promises no other thread exists.
        unsafe { std::env::set_var(name, value) };
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn env<'a>(vars: &'a [(&'a str, &'a str)]) -> impl Fn(&str) -> Option<OsString> + 'a {
        move |k| {
            vars.iter()
                .find(|(name, _)| *name == k)
                .map(|(_, v)| OsString::from(v))
        }
    }

    #[test]
    fn quiet_only_where_wayland_cannot_connect_and_no_gpu_was_chosen() {
        // Containers, CI and ssh: no runtime directory, no Wayland.
        assert!(quiet_device_select(env(&[])));
        assert!(quiet_device_select(env(&[("DISPLAY", ":99")])));
        // libwayland refuses a relative runtime directory with the same message.
        assert!(quiet_device_select(env(&[("XDG_RUNTIME_DIR", "run/user")])));
        assert!(quiet_device_select(env(&[(
            "WAYLAND_DISPLAY",
            "wayland-0"
        )])));
        // A desktop session: the probe is silent and may find the display's GPU.
        assert!(!quiet_device_select(env(&[(
            "XDG_RUNTIME_DIR",
            "/run/user/1000"
        )])));
        // Connections that need no runtime directory.
        assert!(!quiet_device_select(env(&[(
            "WAYLAND_DISPLAY",
            "/tmp/wayland-1"
        )])));
        assert!(!quiet_device_select(env(&[("WAYLAND_SOCKET", "5")])));
        // The user's own choices stand.
        for chosen in ["NODEVICE_SELECT", "DRI_PRIME", "MESA_VK_DEVICE_SELECT"] {
            assert!(!quiet_device_select(env(&[(chosen, "1")])), "{chosen}");
        }
    }
}
