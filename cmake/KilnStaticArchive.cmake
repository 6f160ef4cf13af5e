# kiln_library_alias(TARGET ALIAS EXPORT_NAME): the name users link TARGET by (kiln::kiln,
# kiln::onnx), in the build tree and, as kiln::EXPORT_NAME, in the installed package. A shared
# TARGET is linked as it is. A static one is linked whole (--whole-archive): its kernels register
# themselves from files nothing else references, which a linker drops from an archive.
function(kiln_library_alias target alias export_name)
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    add_library(${target}_whole INTERFACE)
    # The installed package names the archive kiln::<EXPORT_NAME>_archive; CMake does not rewrite
    # a target's name inside $<LINK_LIBRARY>, so each side says its own.
    target_link_libraries(${target}_whole INTERFACE
        "$<BUILD_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,${target}>>"
        "$<INSTALL_INTERFACE:$<LINK_LIBRARY:WHOLE_ARCHIVE,kiln::${export_name}_archive>>")
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name}_archive)
    set_target_properties(${target}_whole PROPERTIES EXPORT_NAME ${export_name})
    add_library(${alias} ALIAS ${target}_whole)
    set(installed ${target} ${target}_whole)
  else()
    set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
    add_library(${alias} ALIAS ${target})
    set(installed ${target})
  endif()
  set(${target}_INSTALLED_TARGETS ${installed} PARENT_SCOPE)
endfunction()
