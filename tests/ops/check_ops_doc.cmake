# cmake -DKILN_OPS=<kiln-ops> -DDOC=<docs/ops.md> -P check_ops_doc.cmake: fails, saying how to
# regenerate it, when DOC is not what `kiln-ops --markdown` prints.
execute_process(COMMAND ${KILN_OPS} --markdown OUTPUT_VARIABLE table RESULT_VARIABLE rc)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "kiln-ops --markdown failed (${rc})")
endif()
file(READ ${DOC} committed)
if(NOT table STREQUAL committed)
  message(FATAL_ERROR "docs/ops.md is not this build's op table: run\n"
                      "  build/apps/kiln-ops --markdown > docs/ops.md\nand commit it")
endif()
