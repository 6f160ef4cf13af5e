# Installs a built kiln into a fresh prefix, then configures, builds and runs each project under
# examples/ against it, the way a project outside kiln would use it; any failing step fails the
# test. Each example's programs check their own results (an accuracy, an error bound) and exit
# non-zero when they are wrong.
# cmake -DKILN_BUILD_DIR=... -DKILN_SOURCE_DIR=... -DWORK_DIR=... [-DGENERATOR=...]
#       [-DCXX_COMPILER=...] [-DAPP=bin/<name>] -P check_examples.cmake
# APP, relative to the prefix, is an installed app run with --help to prove its RPATH.
foreach(var KILN_BUILD_DIR KILN_SOURCE_DIR WORK_DIR)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "check_examples.cmake: -D${var}=... is required")
  endif()
endforeach()
set(prefix ${WORK_DIR}/examples-prefix)
file(REMOVE_RECURSE ${prefix})

function(step what)
  message(STATUS "check_examples: ${what}: ${ARGN}")
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "check_examples: ${what} failed (${rc})")
  endif()
endfunction()

step("install" ${CMAKE_COMMAND} --install ${KILN_BUILD_DIR} --prefix ${prefix})
foreach(file include/kiln/kiln.h include/kiln/core/tensor.h include/kiln/training/trainer.h
            include/kiln/monitor.h include/kiln/monitor/step_profiler.h include/kiln/report.h
            include/kiln/report/run_report_page.h include/kiln/checkpoint/checkpoint.h)
  if(NOT EXISTS ${prefix}/${file})
    message(FATAL_ERROR "check_examples: ${file} was not installed")
  endif()
endforeach()

# Configures and builds examples/<name> against the fresh prefix only; sets <name>_build.
function(build_example name)
  set(build ${WORK_DIR}/${name}-build)
  file(REMOVE_RECURSE ${build})
  set(configure_args -S ${KILN_SOURCE_DIR}/examples/${name} -B ${build}
      -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=${prefix}
      -DCMAKE_FIND_USE_PACKAGE_REGISTRY=OFF)   # only the fresh prefix may provide kiln
  if(GENERATOR)
    list(APPEND configure_args -G ${GENERATOR})
  endif()
  if(CXX_COMPILER)
    list(APPEND configure_args -DCMAKE_CXX_COMPILER=${CXX_COMPILER})
  endif()
  step("configure ${name}" ${CMAKE_COMMAND} ${configure_args})
  file(STRINGS ${build}/CMakeCache.txt kiln_dir REGEX "^kiln_DIR:")
  if(NOT kiln_dir MATCHES "examples-prefix")
    message(FATAL_ERROR "check_examples: ${name} found kiln outside the fresh prefix: ${kiln_dir}")
  endif()
  step("build ${name}" ${CMAKE_COMMAND} --build ${build})
  set(${name}_build ${build} PARENT_SCOPE)
endfunction()

build_example(consumer)
step("run consumer" ${consumer_build}/consumer)

build_example(fashion_residual)  # trains, resumes and predicts; then a second program predicts
set(checkpoints ${WORK_DIR}/fashion-residual-checkpoints)
file(REMOVE_RECURSE ${checkpoints})
step("run train_residual" ${fashion_residual_build}/train_residual ${checkpoints})
step("run predict_residual" ${fashion_residual_build}/predict_residual ${checkpoints})

build_example(tensor_dataset)  # the README's example: own data in memory, own model, Trainer
step("run tensor_dataset" ${tensor_dataset_build}/tensor_dataset)

build_example(custom_layer)  # a layer of its own through the public gradient checker
step("run custom_layer" ${custom_layer_build}/custom_layer)

# The baby GPT on a slice of the fortunes (scripts/install-deps.sh brings them): 64 KB, 30 steps,
# a 40-byte sample, a few seconds. The program exits 1 unless the validation loss fell to under
# 0.8 of the untrained model's; here its output must also show the curve from step 0 to 30 and
# the sample.
build_example(tiny_gpt)
message(STATUS "check_examples: run tiny_gpt")
execute_process(COMMAND ${tiny_gpt_build}/tiny_gpt --steps 30 --eval-interval 15 --max-bytes 65536
                        --sample-tokens 40
                RESULT_VARIABLE rc OUTPUT_VARIABLE tiny_gpt_out ERROR_VARIABLE tiny_gpt_err)
message(STATUS "${tiny_gpt_out}${tiny_gpt_err}")
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "check_examples: tiny_gpt failed (${rc})")
endif()
foreach(expected "\n +0 +- +[0-9.]+\n" "\n +15 +[0-9.]+ +[0-9.]+\n" "\n +30 +[0-9.]+ +[0-9.]+\n"
                 "validation loss [0-9.]+ after 30 steps" "a sample of 40 bytes[^\n]*:\n.")
  if(NOT tiny_gpt_out MATCHES "${expected}")
    message(FATAL_ERROR "check_examples: tiny_gpt's output lacks a line matching '${expected}'")
  endif()
endforeach()

if(APP)
  step("run installed app" ${prefix}/${APP} --help)
endif()
message(STATUS "check_examples: the installed package works")
