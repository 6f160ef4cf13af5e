# Precompiled headers (KILN_PCH, on by default): the standard, fmt and kiln core headers that nearly
# every source of a target includes, parsed once per target instead of once per source. On a cold
# build they were about half of each source's compile time (GoogleTest's headers alone 1.5 s of a
# test file's 2.3 s at -O0). C++ sources only: nvcc compiles the .cu files without them.
# Turn it off (-DKILN_PCH=OFF) to check that every source includes what it uses.
option(KILN_PCH "Precompile the headers most sources include" ON)

set(KILN_PCH_LIBRARY_HEADERS
    <algorithm> <cstdint> <cstring> <functional> <map> <memory> <optional> <sstream> <string>
    <string_view> <unordered_map> <utility> <vector> <fmt/format.h> "kiln/core/tensor.h")
set(KILN_PCH_TEST_HEADERS ${KILN_PCH_LIBRARY_HEADERS} <gtest/gtest.h> <gmock/gmock.h>)

# kiln_precompile_headers(TARGET HEADER...): TARGET's C++ sources see HEADER... precompiled.
function(kiln_precompile_headers target)
  if(NOT KILN_PCH)
    return()
  endif()
  set(headers "")
  foreach(header IN LISTS ARGN)
    list(APPEND headers "$<$<COMPILE_LANGUAGE:CXX>:${header}>")
  endforeach()
  target_precompile_headers(${target} PRIVATE ${headers})
endfunction()

# kiln_share_precompiled_headers(TARGET FROM OWNER): TARGET's C++ sources use OWNER's precompiled
# headers instead of a copy of their own (each copy costs 5 to 7 s of a cold build). TARGET must
# compile with OWNER's options; a definition of TARGET's own is fine if no header uses it.
function(kiln_share_precompiled_headers target from owner)
  if(KILN_PCH)
    target_precompile_headers(${target} REUSE_FROM ${owner})
  endif()
endfunction()
