# Decides whether the CUDA backend is built (KILN_CUDA = AUTO | ON | OFF) and finds its libraries.
# Sets KILN_HAVE_CUDA. GPU code is built for sm_90 (H100/H200) with compute_90 PTX beside it so
# that newer GPUs JIT it; set CMAKE_CUDA_ARCHITECTURES to change that.
set(KILN_HAVE_CUDA OFF)
if(NOT KILN_CUDA STREQUAL "OFF")
  if(NOT CMAKE_CUDA_COMPILER AND EXISTS /usr/local/cuda/bin/nvcc)
    set(CMAKE_CUDA_COMPILER /usr/local/cuda/bin/nvcc)
  endif()
  include(CheckLanguage)
  check_language(CUDA)
  if(CMAKE_CUDA_COMPILER)
    if(NOT DEFINED CMAKE_CUDA_ARCHITECTURES)
      set(CMAKE_CUDA_ARCHITECTURES 90)
    endif()
    enable_language(CUDA)
    # CMake 3.25 (Debian 12) knows no C++20 flag for nvcc, though nvcc 12+ takes -std=c++20.
    if(NOT CMAKE_CUDA20_STANDARD_COMPILE_OPTION AND CMAKE_CUDA_COMPILER_VERSION VERSION_GREATER_EQUAL 12.0)
      set(CMAKE_CUDA20_STANDARD_COMPILE_OPTION -std=c++20)
      set(CMAKE_CUDA20_EXTENSION_COMPILE_OPTION -std=c++20)
    endif()
    # Debian 12's CMake 3.25.1 FindCUDAToolkit marks CUDA::nvToolsExt deprecated without checking
    # that it exists, and fails where it does not (CUDA 13 ships only header-only NVTX 3): give it
    # an empty target to mark. kiln never links it.
    if(CMAKE_VERSION VERSION_LESS 3.26 AND NOT TARGET CUDA::nvToolsExt)
      add_library(CUDA::nvToolsExt INTERFACE IMPORTED)
    endif()
    find_package(CUDAToolkit REQUIRED)
    set(CMAKE_CUDA_STANDARD 20)
    set(CMAKE_CUDA_STANDARD_REQUIRED ON)
    find_library(KILN_CUDNN_LIBRARY cudnn HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
    find_path(KILN_CUDNN_INCLUDE_DIR cudnn.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
    find_library(KILN_NCCL_LIBRARY nccl HINTS ${CUDAToolkit_LIBRARY_DIR} REQUIRED)
    find_path(KILN_NCCL_INCLUDE_DIR nccl.h HINTS ${CUDAToolkit_INCLUDE_DIRS} REQUIRED)
    set(KILN_HAVE_CUDA ON)
    message(STATUS "kiln: CUDA backend ON (nvcc ${CMAKE_CUDA_COMPILER_VERSION}, archs ${CMAKE_CUDA_ARCHITECTURES})")
  elseif(KILN_CUDA STREQUAL "ON")
    message(FATAL_ERROR "KILN_CUDA=ON but no CUDA compiler was found; install the CUDA toolkit "
                        "or configure with -DKILN_CUDA=OFF")
  endif()
endif()
if(NOT KILN_HAVE_CUDA)
  message(STATUS "kiln: CUDA backend OFF (CPU only; CUDA entry points throw 'built without CUDA')")
endif()
