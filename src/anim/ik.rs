//! Inverse kinematics post-process (applied after FK): two-bone, CCD, FABRIK and aim.
//! Implementation in progress.
