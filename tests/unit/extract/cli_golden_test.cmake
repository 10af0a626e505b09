# Runs `pi-fusion extract` on golden inputs and compares stdout with the committed goldens, and
# checks that an error is reported as "error: <code>: <message>" with a non-zero exit.
# Usage: cmake -DPI_FUSION=<binary> -DGOLDEN=<golden dir> -P cli_golden_test.cmake
foreach(case "links_code_quotes_images.input.html;markdown;links_code_quotes_images.md"
             "tables_spans.input.html;text;tables_spans.txt")
  list(GET case 0 input)
  list(GET case 1 format)
  list(GET case 2 expected_file)
  execute_process(COMMAND "${PI_FUSION}" extract "${GOLDEN}/${input}" --format ${format}
                  OUTPUT_VARIABLE actual RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "pi-fusion extract ${input} exited with ${rc}")
  endif()
  file(READ "${GOLDEN}/${expected_file}" expected)
  if(NOT actual STREQUAL expected)
    message(FATAL_ERROR "pi-fusion extract ${input} --format ${format} differs from ${expected_file}:\n${actual}")
  endif()
endforeach()

# Standard input and --content-type.
execute_process(COMMAND "${PI_FUSION}" extract - --content-type "text/html; charset=ISO-8859-1"
                INPUT_FILE "${GOLDEN}/windows1252_header.input.html"
                OUTPUT_VARIABLE actual RESULT_VARIABLE rc)
file(READ "${GOLDEN}/windows1252_header.md" expected)
if(NOT rc EQUAL 0 OR NOT actual STREQUAL expected)
  message(FATAL_ERROR "stdin extraction differs (exit ${rc}):\n${actual}")
endif()

execute_process(COMMAND "${PI_FUSION}" extract "${GOLDEN}/markdown.input.md" --content-type image/png
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "^error: extraction_failed: unsupported content type: image/png")
  message(FATAL_ERROR "expected an extraction_failed error, got exit ${rc}: ${err}")
endif()
execute_process(COMMAND "${PI_FUSION}" extract "${GOLDEN}/does-not-exist.html"
                ERROR_VARIABLE err RESULT_VARIABLE rc)
if(rc EQUAL 0 OR NOT err MATCHES "^error: io_error: cannot open ")
  message(FATAL_ERROR "expected an io_error, got exit ${rc}: ${err}")
endif()
