# Downstream-project test driver (CTest test "downstream", registered in tests/CMakeLists.txt).
#
#   cmake -DABDYN_SOURCE_DIR=<src> -DABDYN_BINARY_DIR=<build> -DWORK_DIR=<scratch> -DBUILD_TYPE=<type>
#         -DCXX_COMPILER=<c++> -DGENERATOR=<generator> -DABDYN_NATIVE=<ON|OFF> [-DABDYN_SANITIZE=<list>]
#         [-DCOMPILER_LAUNCHER=<ccache>] [-DJOBS=<n>] -P run.cmake
#
# 1. installs the already built tree <build> into <scratch>/prefix-main (no rebuild);
# 2. builds tests/downstream (find_package(abdyn), with the urdfdom component when installed) against it
#    twice, with -march=native and with no -march at all, and runs each program;
# 3. builds the library once more from <src>, as a static library with ABDYN_NATIVE toggled (library
#    only, at -O0 and as a unity build to save CI time: the layout choices that make up the ABI follow
#    -march, not the optimisation level or how sources are grouped), installs it into
#    <scratch>/prefix-alt, and builds and runs the consumer against it the same two ways.
# So both mixes (with the usual ABDYN_NATIVE=OFF: a plain shared library with a native program, a native
# static library with a plain program) and both matching pairs are exercised, the static package must
# find its private dependencies (tinyxml2) for the consumer, and the installed headers must compile on
# their own (the consumer includes abdyn/abdyn.hpp from the prefix). Also: the installed `abdyn` program
# runs from the temporary prefix with no library path set (its RPATH, $ORIGIN/../lib) and finds a
# bundled model by name (share/abdyn/models). COMPILER_LAUNCHER (the main build's, e.g. ccache) is used
# for the second library and the consumers.
# When the build has the urdfdom component, every consumer also builds and runs tests/downstream/urdfdom.cpp
# through find_package(abdyn COMPONENTS urdfdom).
# Every step runs even after a failure; the test fails at the end if any did.
# See docs/abi.md for why.

cmake_minimum_required(VERSION 3.21)

foreach(var ABDYN_SOURCE_DIR ABDYN_BINARY_DIR WORK_DIR BUILD_TYPE CXX_COMPILER GENERATOR)
  if(NOT DEFINED ${var} OR "${${var}}" STREQUAL "")
    message(FATAL_ERROR "run.cmake: -D${var}=... is required")
  endif()
endforeach()
if(NOT DEFINED JOBS)
  set(JOBS 2)
endif()
if(ABDYN_NATIVE)
  set(main_native ON)
  set(alt_native OFF)
else()
  set(main_native OFF)
  set(alt_native ON)
endif()
set(consumer_source ${CMAKE_CURRENT_LIST_DIR})

file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")
file(REAL_PATH "${WORK_DIR}" WORK_DIR)

set(failures "")
set(summary "")
string(TIMESTAMP test_start "%s")

# Runs a command and echoes it; sets <ok_var> to TRUE or FALSE and <out_var> to its output, which is
# shown when the command fails or when <what> starts with "run" (the consumer program itself).
function(run_command ok_var out_var what)
  string(TIMESTAMP t0 "%s")
  message(STATUS "[downstream] ${what}")
  list(JOIN ARGN " " shown)
  message(STATUS "[downstream]   $ ${shown}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP t1 "%s")
  math(EXPR dt "${t1} - ${t0}")
  if(out AND (NOT rc EQUAL 0 OR what MATCHES "^run "))
    message("${out}")
  endif()
  if(rc EQUAL 0)
    message(STATUS "[downstream]   ok (${dt} s)")
    set(${ok_var} TRUE PARENT_SCOPE)
  else()
    message(STATUS "[downstream]   FAILED: ${rc} (${dt} s)")
    set(${ok_var} FALSE PARENT_SCOPE)
  endif()
  set(${out_var} "${out}" PARENT_SCOPE)
endfunction()

function(note_failure text)
  set(failures "${failures}\n  ${text}" PARENT_SCOPE)
endfunction()

set(launcher "")
if(COMPILER_LAUNCHER)
  set(launcher "-DCMAKE_CXX_COMPILER_LAUNCHER=${COMPILER_LAUNCHER}")
endif()

set(sanitize_flags "")
if(ABDYN_SANITIZE)
  set(sanitize_flags "-fsanitize=${ABDYN_SANITIZE} -fno-omit-frame-pointer")
endif()

# Builds the consumer against <prefix> (with or without -march=native) and runs it.
function(consumer prefix lib_native consumer_native)
  if(lib_native)
    set(lib_label "native library")
  else()
    set(lib_label "plain library")
  endif()
  if(consumer_native)
    set(app_label "native program")
    set(flags "-march=native ${sanitize_flags}")
    set(dir_suffix native)
  else()
    set(app_label "plain program")
    set(flags "${sanitize_flags}")
    set(dir_suffix plain)
  endif()
  get_filename_component(prefix_name "${prefix}" NAME)
  set(label "${lib_label} + ${app_label}")
  if("${ARGV3}" STREQUAL "STATIC")
    set(label "static ${label}")
  endif()
  set(bdir "${WORK_DIR}/consumer-${prefix_name}-${dir_suffix}")

  run_command(ok out "configure consumer (${label})"
    ${CMAKE_COMMAND} -S ${consumer_source} -B ${bdir} -G ${GENERATOR}
      -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER}
      "-DCMAKE_CXX_FLAGS=${flags}" "-DCMAKE_EXE_LINKER_FLAGS=${sanitize_flags}"
      -DCMAKE_PREFIX_PATH=${prefix} -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF ${launcher})
  if(ok)
    run_command(ok out "build consumer (${label})"
      ${CMAKE_COMMAND} --build ${bdir} --config ${BUILD_TYPE} -j ${JOBS})
  endif()
  if(NOT ok)
    note_failure("${label}: consumer did not configure or build")
    set(summary "${summary}\n  ${label}: BUILD FAILED" PARENT_SCOPE)
    set(failures "${failures}" PARENT_SCOPE)
    return()
  endif()
  set(app "${bdir}/app")
  if(NOT EXISTS "${app}")
    set(app "${bdir}/${BUILD_TYPE}/app")
  endif()
  # LIBC_FATAL_STDERR_: glibc's heap-corruption messages go to stderr (captured) rather than the tty.
  run_command(ok out "run consumer (${label})" ${CMAKE_COMMAND} -E env LIBC_FATAL_STDERR_=1 ${app})
  if(ok AND "${ARGV3}" STREQUAL "STATIC")
    # Linked statically: no libabdyn may be loaded at run time at all.
    string(REGEX MATCH "abdyn library: ([^\n]*)" _ "${out}")
    if(NOT "${CMAKE_MATCH_1}" STREQUAL "")
      set(ok FALSE)
      note_failure("${label}: linked against the static library, but loaded ${CMAKE_MATCH_1}")
    endif()
  elseif(ok)
    # The program must have loaded libabdyn from the prefix under test, not from anywhere else.
    string(REGEX MATCH "abdyn library: ([^\n]*)" _ "${out}")
    set(loaded "${CMAKE_MATCH_1}")
    if(loaded STREQUAL "")
      set(ok FALSE)
      note_failure("${label}: could not tell which libabdyn was loaded")
    else()
      file(REAL_PATH "${loaded}" loaded)
      string(FIND "${loaded}" "${prefix}/" at)
      if(NOT at EQUAL 0)
        set(ok FALSE)
        note_failure("${label}: loaded ${loaded}, not the library under ${prefix}")
      endif()
    endif()
  else()
    note_failure("${label}: program failed (see its output above)")
  endif()
  # The urdfdom component: when the prefix installed it, find_package(abdyn OPTIONAL_COMPONENTS urdfdom)
  # must have found it, and its program must build and run.
  file(GLOB_RECURSE urdfdom_targets "${prefix}/abdynUrdfdomTargets.cmake")
  if(ok AND urdfdom_targets)
    set(app_urdfdom "${bdir}/app_urdfdom")
    if(NOT EXISTS "${app_urdfdom}")
      set(app_urdfdom "${bdir}/${BUILD_TYPE}/app_urdfdom")
    endif()
    if(EXISTS "${app_urdfdom}")
      run_command(ok out "run urdfdom consumer (${label})" ${CMAKE_COMMAND} -E env LIBC_FATAL_STDERR_=1 ${app_urdfdom})
      if(NOT ok)
        note_failure("${label}: the urdfdom component's program failed (see its output above)")
      endif()
    else()
      set(ok FALSE)
      note_failure("${label}: the prefix installs abdyn::urdfdom, but find_package(abdyn COMPONENTS urdfdom) did not find it")
    endif()
  endif()
  if(ok)
    set(summary "${summary}\n  ${label}: ok" PARENT_SCOPE)
  else()
    set(summary "${summary}\n  ${label}: FAILED" PARENT_SCOPE)
  endif()
  set(failures "${failures}" PARENT_SCOPE)
endfunction()

# 1-2. The main build, installed, and the consumer against it both ways.
set(prefix_main "${WORK_DIR}/prefix-main")
run_command(ok out "install ${ABDYN_BINARY_DIR} into ${prefix_main}"
  ${CMAKE_COMMAND} --install ${ABDYN_BINARY_DIR} --prefix ${prefix_main} --config ${BUILD_TYPE})
if(ok AND NOT EXISTS "${prefix_main}/share/doc/abdyn/LICENSE")
  note_failure("cmake --install did not install the LICENSE under share/doc/abdyn")
endif()
if(ok)
  consumer(${prefix_main} ${main_native} ON)
  consumer(${prefix_main} ${main_native} OFF)
else()
  note_failure("cmake --install of the main build failed")
endif()

# 2b. The installed program from the prefix, as a user runs it: no LD_LIBRARY_PATH, a model by name.
if(EXISTS "${prefix_main}/bin/abdyn")
  run_command(ok out "run installed program: ${prefix_main}/bin/abdyn simulate double_pendulum"
    ${CMAKE_COMMAND} -E env --unset=LD_LIBRARY_PATH "${prefix_main}/bin/abdyn" simulate double_pendulum --duration 0.01)
  string(FIND "${out}" "${prefix_main}/share/abdyn/models/double_pendulum.urdf" found_model)
  if(NOT ok OR found_model EQUAL -1)
    note_failure("the installed program did not run from ${prefix_main} or did not find its bundled model by name")
    set(summary "${summary}\n  installed program: FAILED")
  else()
    set(summary "${summary}\n  installed program: ok")
  endif()
endif()

# 3. The library again, static and with the opposite -march choice, and the consumer against it both
# ways. -O0 (keeping NDEBUG where the build type has it) in a unity build compiles several times faster
# than the main build; what decides the ABI (Eigen's alignment and vectorisation macros) depends on
# -march only. Only the library target is built: nothing else is installed from this tree.
string(TOUPPER "${BUILD_TYPE}" build_type_upper)
if(build_type_upper MATCHES "^(RELEASE|RELWITHDEBINFO|MINSIZEREL)$")
  set(alt_opt_flags "-O0 -DNDEBUG")
else()
  set(alt_opt_flags "-O0")
endif()
set(lib_alt "${WORK_DIR}/library-alt")
set(prefix_alt "${WORK_DIR}/prefix-alt")
run_command(ok out "configure the static library with ABDYN_NATIVE=${alt_native}"
  ${CMAKE_COMMAND} -S ${ABDYN_SOURCE_DIR} -B ${lib_alt} -G ${GENERATOR}
    -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DCMAKE_CXX_COMPILER=${CXX_COMPILER} ${launcher}
    "-DCMAKE_CXX_FLAGS_${build_type_upper}=${alt_opt_flags}" -DCMAKE_UNITY_BUILD=ON -DBUILD_SHARED_LIBS=OFF
    -DABDYN_NATIVE=${alt_native} "-DABDYN_SANITIZE=${ABDYN_SANITIZE}" -DABDYN_WERROR=OFF
    -DABDYN_BUILD_TESTS=OFF -DABDYN_BUILD_EXAMPLES=OFF -DABDYN_BUILD_BENCH=OFF -DABDYN_BUILD_APP=OFF
    -DABDYN_BUILD_PYTHON=OFF -DABDYN_BUILD_VIEWER=OFF -DABDYN_BUILD_DOCS=OFF)
if(ok)
  run_command(ok out "build the static library with ABDYN_NATIVE=${alt_native}"
    ${CMAKE_COMMAND} --build ${lib_alt} --config ${BUILD_TYPE} -j ${JOBS})
endif()
if(ok)
  run_command(ok out "install it into ${prefix_alt}"
    ${CMAKE_COMMAND} --install ${lib_alt} --prefix ${prefix_alt} --config ${BUILD_TYPE})
endif()
if(ok)
  consumer(${prefix_alt} ${alt_native} ${main_native} STATIC)
  consumer(${prefix_alt} ${alt_native} ${alt_native} STATIC)
else()
  note_failure("the static library did not build or install with ABDYN_NATIVE=${alt_native}")
endif()

string(TIMESTAMP test_end "%s")
math(EXPR total "${test_end} - ${test_start}")
message(STATUS "[downstream] summary (${total} s):${summary}")
if(NOT failures STREQUAL "")
  message(FATAL_ERROR "[downstream] failed:${failures}")
endif()
