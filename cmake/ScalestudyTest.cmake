# scalestudy_add_doctest(NAME SOURCES file... [LIBS lib...] [LABELS label...] [TIMEOUT s])
# Builds one doctest executable and registers it with CTest. Labels let CI and the GPU
# machine pick suites: unit, integration, slurm, gpu, benchmark.
find_package(doctest REQUIRED)

# Whether `target` links scalestudy_harness, directly or through other project libraries.
function(_scalestudy_links_harness target out)
  set(${out} FALSE PARENT_SCOPE)
  if(target STREQUAL "scalestudy_harness")
    set(${out} TRUE PARENT_SCOPE)
    return()
  endif()
  if(NOT TARGET ${target})
    return()
  endif()
  get_target_property(links ${target} LINK_LIBRARIES)
  if(NOT links)
    return()
  endif()
  foreach(link ${links})
    _scalestudy_links_harness("${link}" found)
    if(found)
      set(${out} TRUE PARENT_SCOPE)
      return()
    endif()
  endforeach()
endfunction()

function(scalestudy_add_doctest name)
  cmake_parse_arguments(ARG "" "TIMEOUT" "SOURCES;LIBS;LABELS" ${ARGN})
  add_executable(${name} ${ARG_SOURCES})
  target_link_libraries(${name} PRIVATE scalestudy_doctest_main doctest::doctest ${ARG_LIBS})
  # torch/torch.h is most of a torch test's compile time: reuse the harness's precompiled
  # header instead of parsing it again in every suite.
  foreach(lib ${ARG_LIBS})
    _scalestudy_links_harness("${lib}" links_torch)
    if(links_torch)
      target_precompile_headers(${name} REUSE_FROM scalestudy_harness)
      break()
    endif()
  endforeach()
  add_test(NAME ${name} COMMAND ${name} --force-colors=0)
  # 77: every case of the suite skipped (tests/support/skip.hpp), which CTest counts.
  set_tests_properties(${name} PROPERTIES
    LABELS "${ARG_LABELS}"
    SKIP_RETURN_CODE 77
    ENVIRONMENT "SCALESTUDY_SOURCE_DIR=${PROJECT_SOURCE_DIR};SCALESTUDY_BINARY_DIR=${PROJECT_BINARY_DIR}")
  if(ARG_TIMEOUT)
    set_tests_properties(${name} PROPERTIES TIMEOUT ${ARG_TIMEOUT})
  endif()
endfunction()

# scalestudy_tests_take_a_core(): called at the end of each folder that adds tests. Every
# test of the folder but the SLURM clusters' suites and fixtures takes one slot of the
# "cores" resource. scripts/test.sh runs ctest with one such slot per core and a job more
# than the cores for each cluster, so the cluster suites, which mostly wait on the
# scheduler (time limits, polls, requeues), run beside as many CPU-bound tests as there are
# cores instead of holding one core's turn. Without a resource spec ctest ignores the slots.
function(scalestudy_tests_take_a_core)
  get_property(tests DIRECTORY PROPERTY TESTS)
  foreach(test IN LISTS tests)
    get_test_property(${test} RESOURCE_LOCK lock)
    if(NOT lock MATCHES "^slurm_cluster")
      set_tests_properties(${test} PROPERTIES RESOURCE_GROUPS "cores:1")
    endif()
  endforeach()
endfunction()
