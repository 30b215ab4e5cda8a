# write_if_changed(PATH TEXT): writes TEXT to PATH unless PATH already holds exactly TEXT, so a
# generated source whose content did not change keeps its timestamp and triggers no rebuild.
function(write_if_changed path text)
  if(EXISTS "${path}")
    file(READ "${path}" _old)
    if(_old STREQUAL text)
      return()
    endif()
  endif()
  file(WRITE "${path}" "${text}")
endfunction()
