# scalestudy_add_doctest(NAME SOURCES file... [LIBS lib...] [LABELS label...] [TIMEOUT s])
# Builds one doctest executable and registers it with CTest. Labels let CI and the GPU
# machine pick suites: unit, integration, slurm, gpu, benchmark.
find_package(doctest REQUIRED)

function(scalestudy_add_doctest name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE scalestudy_doctest_main doctest::doctest ${ARG_LIBS})
  add_test(NAME ${name} COMMAND ${name} --force-colors=0)
  set_tests_properties(${name} PROPERTIES
    LABELS "${ARG_LABELS}"
    ENVIRONMENT "SCALESTUDY_SOURCE_DIR=${PROJECT_SOURCE_DIR};SCALESTUDY_BINARY_DIR=${PROJECT_BINARY_DIR}")
  if(ARG_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  endif()
endfunction()
