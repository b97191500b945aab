#pragma once
// abdyn: the whole public API.

#include "abdyn/error.hpp"
#include "abdyn/logging.hpp"
#include "abdyn/spatial/articulated_body_inertia.hpp"
#include "abdyn/spatial/cross.hpp"
#include "abdyn/spatial/force.hpp"
#include "abdyn/spatial/motion.hpp"
#include "abdyn/spatial/plx.hpp"
#include "abdyn/spatial/plxb.hpp"
#include "abdyn/spatial/rigid_body_inertia.hpp"
#include "abdyn/spatial/types.hpp"
