# Installs a built kiln into a fresh prefix, then configures, builds and runs examples/consumer
# against it, the way a project outside kiln would use it; any failing step fails the test.
# cmake -DKILN_BUILD_DIR=... -DKILN_SOURCE_DIR=... -DWORK_DIR=... [-DGENERATOR=...]
#       [-DCXX_COMPILER=...] [-DAPP=bin/<name>] -P check_consumer.cmake
# APP, relative to the prefix, is an installed app run with --help to prove its RPATH.
foreach(var KILN_BUILD_DIR KILN_SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_consumer.cmake: -D${var}=... is required")
  endif()
endforeach()
set(prefix ${WORK_DIR}/consumer-prefix)
set(build ${WORK_DIR}/consumer-build)
file(REMOVE_RECURSE ${prefix} ${build})

function(step what)
  message(STATUS "check_consumer: ${what}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "check_consumer: ${what} failed (${rc})")
  endif()
endfunction()

set(configure_args -S ${KILN_SOURCE_DIR}/examples/consumer -B ${build}
    -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
    -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)   # only the fresh prefix may provide kiln
if(GENERATOR)
  list(APPEND configure_args -G ${GENERATOR})
endif()
if(CXX_COMPILER)
  list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
endif()

step("install" ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${prefix})
foreach(file include/kiln/kiln.h include/kiln/core/tensor.h)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "check_consumer: ${file} was not installed")
  endif()
endforeach()
step("configure consumer" ${CMAKE_COMMAND} ${configure_args})
file(STRINGS ${build}/CMakeCache.txt kiln_dir REGEX "^kiln_DIR:")
if(NOT kiln_dir MATCHES "consumer-prefix")
  message(FATAL_ERROR "check_consumer: kiln was found outside the fresh prefix: ${kiln_dir}")
endif()
step("build consumer" ${CMAKE_COMMAND} --build ${build})
step("run consumer" ${build}/consumer)
if(APP)
  step("run installed app" ${prefix}/${APP} --help)
endif()
message(STATUS "check_consumer: the installed package works")
