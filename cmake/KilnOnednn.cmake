# The CPU backend's compute library. kiln links oneDNN (Debian's libdnnl-dev, 2.x, built on
# libgomp: the OpenMP pool kiln's own loops use) when it is there, for the CPU's matrix products,
# convolutions and pooling; its JIT kernels are generated for the CPU at hand (AVX2, AVX-512,
# AVX-512 bf16, AMX) whatever OPENBLAS_CORETYPE says. Everything that calls it sits behind
# core/cpu/onednn/. Without it, or with KILN_ONEDNN=OFF, the OpenBLAS / Eigen / im2col path
# computes everything (it stays in every build as the reference the tests compare against).
# Sets KILN_HAVE_ONEDNN and the DNNL::dnnl target.
set(KILN_ONEDNN AUTO CACHE STRING "CPU compute through oneDNN: AUTO, ON or OFF")
set_property(CACHE KILN_ONEDNN PROPERTY STRINGS AUTO ON OFF)

set(KILN_HAVE_ONEDNN OFF)
if(KILN_ONEDNN STREQUAL "OFF")
  message(STATUS "kiln: CPU compute on the reference path only (KILN_ONEDNN=OFF)")
else()
  find_package(dnnl 2.6 CONFIG QUIET)
  if(dnnl_FOUND)
    set(KILN_HAVE_ONEDNN ON)
    message(STATUS "kiln: CPU compute through oneDNN ${dnnl_VERSION}")
  elseif(KILN_ONEDNN STREQUAL "ON")
    message(FATAL_ERROR "KILN_ONEDNN=ON but oneDNN was not found: "
                        "apt-get install libdnnl-dev (scripts/install-deps.sh does)")
  else()
    message(STATUS "kiln: CPU compute through OpenBLAS/Eigen (libdnnl-dev not found)")
  endif()
endif()
