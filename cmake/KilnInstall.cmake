# cmake --install: the library, the public headers under include/kiln/, and a CMake package so
# that another project can find_package(kiln) and link kiln::kiln (tests/install checks this with
# examples/consumer). Installed programs find libkiln through $ORIGIN/../lib, and libkiln finds
# the CUDA libraries where it was linked against them.
include(CMakePackageConfigHelpers)

install(TARGETS ${kiln_INSTALLED_TARGETS} EXPORT kilnTargets
        LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
set_target_properties(kiln PROPERTIES INSTALL_RPATH_USE_LINK_PATH ON)

# Headers keep their source paths: <prefix>/include/kiln/core/tensor.h is "kiln/core/tensor.h".
# The backends' headers (core/cpu, core/cuda, distributed/cuda) are internal and stay out. A folder with no code
# yet is absent from a clone, hence OPTIONAL.
install(FILES ${PROJECT_SOURCE_DIR}/kiln.h ${PROJECT_SOURCE_DIR}/spec.h ${PROJECT_SOURCE_DIR}/distributed.h
              ${PROJECT_SOURCE_DIR}/io.h ${PROJECT_SOURCE_DIR}/monitor.h
              ${PROJECT_SOURCE_DIR}/report.h DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln)
foreach(folder core layers optim data models spec io checkpoint monitor report training distributed)
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/${folder}/ DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/kiln/${folder}
          OPTIONAL FILES_MATCHING PATTERN "*.h"
          PATTERN "cpu" EXCLUDE PATTERN "cuda" EXCLUDE)
endforeach()
install(EXPORT kilnTargets NAMESPACE kiln:: DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/kilnConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/kilnConfig.cmake
                              INSTALL_DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/kilnConfig.cmake ${PROJECT_BINARY_DIR}/kilnConfigVersion.cmake
        DESTINATION ${CMAKE_INSTALL_LIBDIR}/cmake/kiln)

if(KILN_BUILD_APPS AND KILN_APP_TARGETS)
  set_target_properties(${KILN_APP_TARGETS} PROPERTIES
                        INSTALL_RPATH "$ORIGIN/../${CMAKE_INSTALL_LIBDIR}" INSTALL_RPATH_USE_LINK_PATH ON)
  install(TARGETS ${KILN_APP_TARGETS} RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()
