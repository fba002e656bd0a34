// io.h: reading what a user names (scenario, preset, record and settings files, standard input)
// with limits, so no input can hang a program or fill its memory.
//
// Only regular files are read: a FIFO would block forever, /dev/zero never ends, a directory
// reads as nothing. Every reader has a byte cap and says so when it is exceeded.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace bankviz {

inline constexpr int64_t kMaxScenarioBytes = int64_t{16} << 20;  // scenario and preset files

struct TextRead {
  std::optional<std::string> text;
  std::string error;  // set when !text: "'x' is a FIFO, not a regular file", "... is 2 GB; ..."
};

// Empty when `path` names a regular file (after symlinks), else why it cannot be read.
std::string regular_file_problem(const std::string& path);

// Empty unless `path` (after links) lies in one of the kernel's own file systems (/proc, /sys,
// debugfs, ...), whose "files" are the kernel's views, not data on a disk (a read of /proc/kmsg
// never ends): then says so.
std::string kernel_view_problem(const std::string& path);

// The whole file, if it is a regular file of at most max_bytes.
TextRead read_text_file(const std::string& path, int64_t max_bytes);

// Empty when standard input (file descriptor 0) can be read, else why not: closed (`<&-`) or a
// directory; either would otherwise read as nothing, not as an error.
std::string standard_input_problem();

// At most max_bytes of a stream (standard input); `what` names it in the error.
TextRead read_text_stream(std::istream& in, int64_t max_bytes, const std::string& what);

// ---- Writing ----------------------------------------------------------------------------------
// Every file bankviz writes (exports, screenshots, settings, scenarios) goes through here: the
// bytes go to a temporary file beside the target, are flushed, synced and closed with every error
// checked, and only then renamed over the target. A full disk or a failed write leaves the old file
// as it was and no partial file behind.

// Empty when `path` may be written, else why not: no name, a directory, an existing file without
// `force`, an existing special file (a device or FIFO is never replaced, even with `force`), a
// missing directory, a folder in one of the kernel's own file systems (/proc, /sys: no regular
// file can be made there), or a link bankviz will not write through (shared_link_problem).
std::string output_problem(const std::string& path, bool force);

// Empty unless `path`'s extension names a file format other than `format` ("svg", "png", "gif",
// "json"): "x.png" for an SVG, as a desktop program refuses to save one format under another's
// name. A name without an extension, or with one that is not a known format's, is fine.
std::string extension_problem(const std::string& path, std::string_view format);

// Empty unless `path` is a symbolic link that another user owns in a sticky, world-writable
// directory (/tmp): the rule of the kernel's fs.protected_symlinks (the link's owner must be the
// writer or the directory's owner), which a writer that resolves the link itself would sidestep.
std::string shared_link_problem(const std::string& path);

// Writes `bytes` to `path` as above. Empty on success, else the reason ("cannot write 'x': No space
// left on device").
// The temporary file is created and renamed inside the target's directory, opened once, without
// following links; a write past the file-size limit removes it and says so (once SIGXFSZ is
// ignored: ignore_file_size_signal()).
std::string write_file_atomic(const std::string& path, std::string_view bytes, bool force);

// Makes a write past the file-size limit (ulimit -f) fail with EFBIG, which the writer reports and
// cleans up after, instead of SIGXFSZ killing the program with its temporary file left behind.
// Both programs call it first thing.
void ignore_file_size_signal();

// Makes SIGINT, SIGTERM, SIGHUP and SIGQUIT remove the temporary files write_file_atomic() has
// open before they end the program (which they still do, with the same status): Ctrl+C during an
// export leaves neither a partial file nor a hidden temporary one. A signal whose action is not the
// default (ignored, as `nohup` or a background job sets it, or handled by the program) keeps it.
// Both programs call it first thing; SIGKILL cannot be caught, and leaves the temporary file.
// The same signals also kill the process groups and remove the temporary directories named below
// (the CPU recording's compiler and program, its /tmp/bankviz-record-XXXXXX): groups first.
void remove_temporary_files_on_signal();

// Until forget_on_signal(slot): a signal of remove_temporary_files_on_signal() kills the process
// group `group` (its leader's pid, a child of this process) with SIGKILL, then reaps the leader.
// Returns the slot, -1 when all are taken (then only the child's PR_SET_PDEATHSIG ends it).
int kill_process_group_on_signal(int group);

// Until forget_on_signal(slot): such a signal removes the directory `path` and the files in it
// (one level: a directory made for temporary files, no subfolders), after the groups are killed.
// Returns the slot, -1 when all are taken or the directory's folder cannot be opened.
int remove_directory_on_signal(const std::string& path);

// Ends what a slot of the two above asked (-1: nothing).
void forget_on_signal(int slot);

}  // namespace bankviz
