# Third-party libraries, all from Debian packages (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(OpenMP REQUIRED COMPONENTS CXX)   # the one CPU thread pool: Eigen GEMM and our loops
find_package(Eigen3 3.4 REQUIRED NO_MODULE)
find_package(fmt REQUIRED)
find_package(spdlog REQUIRED)
find_package(nlohmann_json REQUIRED)          # safetensors headers, JSON logs
find_package(ZLIB REQUIRED)                    # IDX .gz files
find_package(PNG REQUIRED)                     # image-folder datasets
find_package(JPEG REQUIRED)
# Data-parallel jobs under mpirun (Open MPI). MPI's C API used from C++; without the deprecated
# C++ bindings, and without enabling the C language for it.
set(MPI_CXX_SKIP_MPICXX ON)
find_package(MPI REQUIRED COMPONENTS CXX)
