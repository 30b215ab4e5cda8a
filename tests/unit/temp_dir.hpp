#pragma once
// A fresh, empty, uniquely named directory (mkdtemp): tests never see files that an earlier,
// killed test process with the same pid left behind (a stale journal made setup fail).
#include <stdlib.h>

#include <filesystem>
#include <stdexcept>
#include <string>

inline std::filesystem::path fresh_temp_dir(const std::string& prefix) {
  std::string tmpl = (std::filesystem::temp_directory_path() / (prefix + "XXXXXX")).string();
  if (!::mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed for " + tmpl);
  return tmpl;
}
