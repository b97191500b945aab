#pragma once
/// @file
/// Argument checking. Every algorithm checks the sizes of its arguments (O(1)) and throws
/// abdyn::InvalidArgument naming the argument and the expected size. Checked mode adds an O(nq + nv)
/// scan per call that also rejects NaN or infinite entries and quaternions in q whose norm is off by
/// more than 1e-6. It is on by default in builds without NDEBUG (Debug) and off in Release builds;
/// switch it at run time with setCheckedMode. The setting is global and atomic.

namespace abdyn {

/// Whether checked mode is on (the finite-value and unit-quaternion scans).
bool checkedMode();
/// Turns checked mode on or off for the whole process.
void setCheckedMode(bool on);

}  // namespace abdyn
