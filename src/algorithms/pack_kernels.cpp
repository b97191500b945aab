// The pack kernels' run-time dispatch (pack_dynamics.hpp): Highway compiles this file once per instruction
// set, like the kernels it gathers (pack_aba.cpp, pack_rnea.cpp, pack_crba.cpp), and packKernels() returns
// the kernels of the best instruction set that the CPU has and setBatchSimd allows.

#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "algorithms/pack_kernels.cpp"
#include <hwy/foreach_target.h>  // IWYU pragma: keep

#include "algorithms/pack_lanes-inl.hpp"

HWY_BEFORE_NAMESPACE();
namespace abdyn::internal::HWY_NAMESPACE {

const PackKernels* Kernels() {
  static const PackKernels kernels{hwy::TargetName(HWY_TARGET), static_cast<int>(hn::Lanes(D())), &abaPack, &rneaPack,
                                   &crbaPack};
  return &kernels;
}

}  // namespace abdyn::internal::HWY_NAMESPACE
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace abdyn::internal {

HWY_EXPORT(Kernels);

const PackKernels& packKernels() { return *HWY_DYNAMIC_DISPATCH(Kernels)(); }

std::size_t packWorkDoublesPerLane(const PackModel& model) {
  // BodyLanes and DofLanes in doubles per lane (their sizes over W).
  constexpr std::size_t kBody = 12 + 4 * 6 + 21, kDof = 6 + 6 + 2;
  return model.bodies.size() * kBody + static_cast<std::size_t>(model.nv) * kDof;
}

}  // namespace abdyn::internal
#endif
