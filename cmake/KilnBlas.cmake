# The CPU GEMM. kiln links OpenBLAS's OpenMP build (Debian's libopenblas-openmp-dev) when it is
# there: its sgemm is about 1.5x Eigen's at the article network's shapes on this project's
# machines (docs/performance.md), and it runs on OpenMP's thread pool, the one kiln's own loops
# use, so GEMM and elementwise threads never oversubscribe the cores. The pthread build is not
# taken for that reason: it keeps a second pool whose threads spin beside OpenMP's. Without it,
# or with KILN_OPENBLAS=OFF, the GEMM is Eigen's.
# Sets KILN_HAVE_OPENBLAS, KILN_OPENBLAS_LIBRARY and KILN_OPENBLAS_INCLUDE_DIR.
set(KILN_OPENBLAS AUTO CACHE STRING "CPU GEMM through OpenBLAS (OpenMP build): AUTO, ON or OFF")
set_property(CACHE KILN_OPENBLAS PROPERTY STRINGS AUTO ON OFF)

set(KILN_HAVE_OPENBLAS OFF)
if(NOT KILN_OPENBLAS STREQUAL "OFF")
  # Debian installs each OpenBLAS build in its own folder; the default libopenblas.so is whichever
  # build update-alternatives picked, so the OpenMP one is named by its folder.
  set(openmp_lib_dir /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp)
  set(openmp_include_dir /usr/include/${CMAKE_LIBRARY_ARCHITECTURE}/openblas-openmp)
  find_library(KILN_OPENBLAS_LIBRARY openblas PATHS ${openmp_lib_dir} NO_DEFAULT_PATH)
  find_path(KILN_OPENBLAS_INCLUDE_DIR cblas.h PATHS ${openmp_include_dir} NO_DEFAULT_PATH)
  if(KILN_OPENBLAS_LIBRARY AND KILN_OPENBLAS_INCLUDE_DIR)
    set(KILN_HAVE_OPENBLAS ON)
    message(STATUS "kiln: CPU GEMM through OpenBLAS (OpenMP build) ${KILN_OPENBLAS_LIBRARY}")
  elseif(KILN_OPENBLAS STREQUAL "ON")
    message(FATAL_ERROR "KILN_OPENBLAS=ON but OpenBLAS's OpenMP build is missing: "
                        "apt-get install libopenblas-openmp-dev (scripts/install-deps.sh does)")
  else()
    message(STATUS "kiln: CPU GEMM through Eigen (libopenblas-openmp-dev not found)")
  endif()
endif()
