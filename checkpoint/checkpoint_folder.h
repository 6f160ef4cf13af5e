// The layout of a checkpoint folder, where one checkpoint is one unit: a sub-folder ckpt-NNNNNN
// holding all its pieces, written under a temporary name, fsynced and renamed into place, then
// published by replacing the symbolic link `latest` with one rename. A reader that follows
// `latest` sees the previous complete unit or the new one, at any moment a writer can die.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kiln/io/folder_lock.h"

namespace kiln {

//   DIR/lock                 held by the run writing here (io/folder_lock.h)
//   DIR/latest -> ckpt-000007
//   DIR/ckpt-000006/  DIR/ckpt-000007/   the newest `keep` units
//   DIR/model.safetensors -> latest/model.safetensors   (and each other piece: for an init file and
//                                                        other readers of the first layout)
//
// The first layout (the pieces straight in DIR, no `latest`) is still read.
class CheckpointFolder {
 public:
  // Creates `dir` if needed (an error if it is a file), locks it against other runs and removes
  // what a run killed while writing left behind. Keeps the newest `keep` (>= 1) units.
  CheckpointFolder(const std::string& dir, int keep);

  // Writes `pieces` (file name, bytes) as the next unit, publishes it and drops older units.
  // Throws kiln::Error naming the file that could not be written; the last unit stays published.
  void publish(const std::vector<std::pair<std::string, std::string>>& pieces);
  const std::string& dir() const { return dir_; }

 private:
  void remove_leftovers() const;
  void publish_unit(const std::vector<std::pair<std::string, std::string>>& pieces);

  std::string dir_;
  int keep_;
  FolderLock lock_;
};

// The folder that holds the newest complete checkpoint of `dir`: the unit `latest` names, or
// `dir` itself for the first layout; nothing when `dir` holds no checkpoint. Throws kiln::Error
// when `latest` names a unit that is missing.
std::optional<std::string> find_checkpoint(const std::string& dir);

}  // namespace kiln
