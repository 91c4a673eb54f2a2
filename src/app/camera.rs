//! The demo's camera: orbit about a target point with the mouse (left drag turns, right or
//! middle drag pans, the wheel zooms), WASD to fly the target over the ground (Q/E down and
//! up), Shift to go faster. Pure math: the window feeds it deltas.

use glam::{Mat4, Vec2, Vec3};

/// Vertical field of view, radians.
pub const FOV_Y: f32 = 0.75;

/// The size of character the demo's spacing and framing were made for, metres: the
/// mannequin's, as [`super::scene::character_size`] measures it (its largest extent over its
/// baked frames, 1.849 m with a hand raised), so that its crowd looks as it always did.
pub const REFERENCE_SIZE: f32 = 1.85;

/// `size` / [`REFERENCE_SIZE`], kept within [1e-3, 1e3] (and 1 for a size that is not a
/// positive number) so that a degenerate bake cannot put the camera at zero or infinity.
pub fn size_scale(size: f32) -> f32 {
    let s = size / REFERENCE_SIZE;
    if s.is_finite() && s > 0.0 {
        s.clamp(1e-3, 1e3)
    } else {
        1.0
    }
}

/// An orbit camera.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct OrbitCamera {
    /// The point it looks at and turns about, metres.
    pub target: Vec3,
    /// Turn about +y, radians (0 looks along −z... from +z towards the target).
    pub yaw: f32,
    /// Angle above the ground, radians, in [0.05, 1.5].
    pub pitch: f32,
    /// Distance from the target, metres, in [1, 5000].
    pub distance: f32,
}

/// Keys held for flying, as a direction: x right, y up, z forward.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct FlyKeys {
    /// Right (+1, D) or left (−1, A).
    pub right: f32,
    /// Up (+1, E) or down (−1, Q).
    pub up: f32,
    /// Forward (+1, W) or back (−1, S).
    pub forward: f32,
    /// Shift: four times as fast.
    pub fast: bool,
}

impl OrbitCamera {
    /// A camera over the southern part of a square plaza of half-size `half` metres,
    /// looking north across it: the nearest agents in full detail, the plaza stretching away
    /// through the coarser LOD levels. `size` is the size of the characters, metres (see
    /// [`super::scene::character_size`]): the height it looks at and the range of its
    /// distance scale with it, so a crowd of mice or of giants is framed as one of people.
    pub fn overlooking(half: f32, size: f32) -> Self {
        let scale = size_scale(size);
        let half = half.max(2.0 * scale);
        Self {
            // 1 m up (the mannequin's waist), 8 to 40 m away, for characters of the reference size.
            target: Vec3::new(0.0, scale, half * 0.45),
            yaw: 0.0,
            pitch: 0.38,
            distance: (half * 0.4).clamp(8.0 * scale, 40.0 * scale),
        }
    }

    /// Where the camera is, metres.
    pub fn eye(&self) -> Vec3 {
        let (sy, cy) = self.yaw.sin_cos();
        let (sp, cp) = self.pitch.sin_cos();
        self.target + Vec3::new(sy * cp, sp, cy * cp) * self.distance
    }

    /// The view-projection matrix for an image of `aspect` = width / height (right-handed,
    /// wgpu depth 0..1); the far plane reaches past a plaza of half-size `half` seen from
    /// anywhere near it.
    pub fn view_proj(&self, aspect: f32, half: f32) -> Mat4 {
        let view = glam::camera::rh::view::look_at_mat4(self.eye(), self.target, Vec3::Y);
        let far = (self.distance + half * 3.0 + 50.0).max(100.0);
        let proj = glam::camera::rh::proj::directx::perspective(FOV_Y, aspect.max(1e-3), 0.1, far);
        proj * view
    }

    /// Turns by a mouse drag of `delta` pixels.
    pub fn orbit(&mut self, delta: Vec2) {
        self.yaw -= delta.x * 0.005;
        self.pitch = (self.pitch + delta.y * 0.005).clamp(0.05, 1.5);
    }

    /// Moves the target by a mouse drag of `delta` pixels in a window `height` pixels
    /// tall, so the ground under the cursor roughly follows it.
    pub fn pan(&mut self, delta: Vec2, height: f32) {
        let per_pixel = 2.0 * (FOV_Y * 0.5).tan() * self.distance / height.max(1.0);
        let (sy, cy) = self.yaw.sin_cos();
        let right = Vec3::new(cy, 0.0, -sy);
        let back = Vec3::new(sy, 0.0, cy);
        self.target += (-right * delta.x - back * delta.y) * per_pixel;
    }

    /// Zooms by `steps` wheel notches (positive: closer), 12% a notch.
    pub fn zoom(&mut self, steps: f32) {
        self.distance = (self.distance * 0.88f32.powf(steps)).clamp(1.0, 5000.0);
    }

    /// Flies the target for `dt` seconds with `keys` held, at a speed that grows with the
    /// distance (so flying feels the same near and far).
    pub fn fly(&mut self, keys: FlyKeys, dt: f32) {
        let speed = (self.distance * 0.8).max(3.0) * if keys.fast { 4.0 } else { 1.0 };
        let (sy, cy) = self.yaw.sin_cos();
        let right = Vec3::new(cy, 0.0, -sy);
        let forward = -Vec3::new(sy, 0.0, cy);
        let step = right * keys.right + forward * keys.forward + Vec3::Y * keys.up;
        self.target += step * speed * dt;
        self.target.y = self.target.y.max(0.0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_target_is_in_the_middle_of_the_picture() {
        let c = OrbitCamera::overlooking(40.0, REFERENCE_SIZE);
        let p = c.view_proj(16.0 / 9.0, 40.0) * c.target.extend(1.0);
        // The target projects to the image centre, in front of the camera (depth in 0..1).
        // 1e-5: f32 rounding of the matrix product.
        assert!((p.x / p.w).abs() < 1e-5 && (p.y / p.w).abs() < 1e-5);
        assert!(p.z / p.w > 0.0 && p.z / p.w < 1.0);
    }

    #[test]
    fn flying_forward_moves_towards_what_the_camera_looks_at() {
        let mut c = OrbitCamera::overlooking(40.0, REFERENCE_SIZE);
        c.yaw = 0.7;
        let look = (c.target - c.eye()) * Vec3::new(1.0, 0.0, 1.0);
        let before = c.target;
        c.fly(
            FlyKeys {
                forward: 1.0,
                ..Default::default()
            },
            0.1,
        );
        assert!((c.target - before).dot(look) > 0.0);
        assert_eq!(c.target.y, before.y, "flying forward keeps the height");
    }

    #[test]
    fn a_larger_character_is_framed_from_proportionally_further() {
        // Half-sizes grow with the characters' size (the plaza's area per agent does), so a
        // crowd ten times as large is seen from ten times as far, looking ten times as high.
        let small = OrbitCamera::overlooking(40.0, REFERENCE_SIZE);
        let large = OrbitCamera::overlooking(400.0, REFERENCE_SIZE * 10.0);
        // 1e-4 relative: f32 rounding of products of a few terms.
        assert!((large.distance / small.distance - 10.0).abs() < 1e-4 * 10.0);
        assert!(
            (large.target / small.target - Vec3::splat(10.0))
                .abs()
                .max_element()
                < 1e-3
        );
    }

    #[test]
    fn pitch_and_distance_stay_in_range() {
        let mut c = OrbitCamera::overlooking(10.0, REFERENCE_SIZE);
        c.orbit(Vec2::new(0.0, 1e6));
        assert_eq!(c.pitch, 1.5);
        c.orbit(Vec2::new(0.0, -1e6));
        assert_eq!(c.pitch, 0.05);
        c.zoom(1000.0);
        assert_eq!(c.distance, 1.0);
        c.zoom(-1000.0);
        assert_eq!(c.distance, 5000.0);
    }
}
