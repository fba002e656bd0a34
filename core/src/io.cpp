// io.cpp: bounded reads of user files (io.h).
#include "bankviz/io.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <istream>
#include <vector>

#include <fcntl.h>
#if __has_include(<linux/magic.h>)
#include <linux/magic.h>
#define BANKVIZ_KERNEL_FILE_SYSTEMS 1
#else
// The browser build (Emscripten): its files are the page's memory; no kernel views to refuse.
#define BANKVIZ_KERNEL_FILE_SYSTEMS 0
#endif
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

namespace bankviz {

namespace {

// "2 MB", "1.9 MB" (a tenth below ten of a unit, never rounded up: a file of 1.9 MB is not said
// to be "1 MB" when it is larger than the 1 MB allowed), "512 KB", "100 bytes".
std::string size_text(int64_t bytes) {
  const auto in = [bytes](int shift, const char* unit) {
    const int64_t whole = bytes >> shift;
    if (whole >= 10 || (bytes & ((int64_t{1} << shift) - 1)) == 0)
      return std::to_string(whole) + unit;
    const int64_t tenths = (bytes * 10) >> shift;  // bytes < 10 units: no overflow
    return std::to_string(tenths / 10) + "." + std::to_string(tenths % 10) + unit;
  };
  if (bytes >= (int64_t{1} << 20)) return in(20, " MB");
  if (bytes >= 1024) return in(10, " KB");
  return std::to_string(bytes) + " bytes";
}

std::string too_big(const std::string& what, int64_t max_bytes) {
  return what + " is larger than " + size_text(max_bytes) + ", the most bankviz reads";
}

constexpr size_t kReadChunk = 65536;

// The kernel's own file systems (/proc, /sys, ...) hold no regular files a program can write as
// a new file: their "files" are the kernel's views. Their name, or nullptr for any other.
const char* kernel_file_system(int64_t magic) {
#if !BANKVIZ_KERNEL_FILE_SYSTEMS
  (void)magic;
  return nullptr;
#else
  switch (magic) {
    case PROC_SUPER_MAGIC:
      return "proc";
    case SYSFS_MAGIC:
      return "sysfs";
    case DEBUGFS_MAGIC:
      return "debugfs";
    case TRACEFS_MAGIC:
      return "tracefs";
    case SECURITYFS_MAGIC:
      return "securityfs";
    case CGROUP_SUPER_MAGIC:
    case CGROUP2_SUPER_MAGIC:
      return "cgroup";
    case DEVPTS_SUPER_MAGIC:
      return "devpts";
    case BPF_FS_MAGIC:
      return "bpf";
    default:
      return nullptr;
  }
#endif
}

// [SECTION] Temporary files a signal must not leave behind =======================================
// write_file_atomic() names each temporary file here while it exists, the CPU recording its
// temporary directory and its child's process group; the handler of
// remove_temporary_files_on_signal() kills those groups, then removes the files and directories
// named, when a signal ends the program. Written by the working threads, read by a signal handler:
// only lock-free atomics and fixed arrays, and the handler calls only kill, waitpid, openat,
// getdents64, unlinkat, close, nanosleep, signal and raise (async-signal-safe).
struct TempSlot {
  std::atomic<int> dir{-1};   // the folder's descriptor while `name` is a live file or directory
  std::atomic<int> group{0};  // a process group to kill, while > 0
  bool directory = false;     // `name` is a directory (its files go with it); `dir` is ours
  char name[320] = {};
};
static_assert(std::atomic<int>::is_always_lock_free);
constexpr int kTempSlots = 16;
TempSlot g_temp[kTempSlots];
std::atomic<int> g_busy[kTempSlots];  // 1 while a worker owns the slot (claimed or filling it)

int claim_slot() {
  for (int i = 0; i < kTempSlots; ++i) {
    int expected = 0;
    if (g_busy[i].compare_exchange_strong(expected, 1)) return i;
  }
  return -1;
}

// A free slot holding (dir, name), or -1 when all are taken (then the file is still removed on
// every failure, only a signal could leave it).
int remember_temporary(int dir, const std::string& name, bool directory = false) {
  if (name.size() >= sizeof(TempSlot::name)) return -1;
  const int i = claim_slot();
  if (i < 0) return -1;
  std::memcpy(g_temp[i].name, name.c_str(), name.size() + 1);
  g_temp[i].directory = directory;
  g_temp[i].dir.store(dir);  // published last: the handler reads a complete name
  return i;
}

void forget_temporary(int slot) {
  if (slot < 0 || slot >= kTempSlots) return;
  const int dir = g_temp[slot].dir.exchange(-1);
  if (g_temp[slot].directory && dir >= 0) ::close(dir);
  g_temp[slot].group.store(0);
  g_temp[slot].directory = false;
  g_busy[slot].store(0);
}

// Removes the folder `name` in `dir` with the files in it (one level). A process just killed may
// still finish a call that makes a file: a few tries, 10 ms apart.
void remove_flat_directory(int dir, const char* name) {
#ifdef __EMSCRIPTEN__
  // The browser build starts no process, so it makes no such folder (the CPU recording's).
  (void)dir;
  (void)name;
  return;
#endif
  for (int attempt = 0; attempt < 20; ++attempt) {
    const int fd = ::openat(dir, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0) return;  // gone (or never made)
    alignas(8) char buf[4096];
    for (;;) {
#ifndef __EMSCRIPTEN__
      const long n = ::syscall(SYS_getdents64, fd, buf, sizeof buf);
#else
      const long n = 0;
#endif
      if (n <= 0) break;
      for (long at = 0; at < n;) {
        // struct linux_dirent64: ino (8), off (8), reclen (2), type (1), name
        unsigned short reclen = 0;
        std::memcpy(&reclen, buf + at + 16, sizeof reclen);
        const char* entry = buf + at + 19;
        if (std::strcmp(entry, ".") != 0 && std::strcmp(entry, "..") != 0) ::unlinkat(fd, entry, 0);
        if (reclen == 0) break;
        at += reclen;
      }
    }
    ::close(fd);
    if (::unlinkat(dir, name, AT_REMOVEDIR) == 0 || errno == ENOENT) return;
    const timespec pause{0, 10'000'000};
    ::nanosleep(&pause, nullptr);
  }
}

void remove_temporaries_and_end(int sig) {
  const int saved = errno;
  for (TempSlot& t : g_temp)
    if (const int group = t.group.load(); group > 0) ::kill(-group, SIGKILL);
  for (TempSlot& t : g_temp)
    if (const int group = t.group.load(); group > 0) ::waitpid(group, nullptr, 0);
  for (TempSlot& t : g_temp) {
    const int dir = t.dir.load();
    if (dir < 0) continue;
    if (t.directory)
      remove_flat_directory(dir, t.name);
    else
      ::unlinkat(dir, t.name, 0);
  }
  errno = saved;
  // SA_RESETHAND made the action the default again; the signal, blocked while this runs, is
  // delivered once it returns and ends the program as it would have (its status says which).
  ::raise(sig);
}

}  // namespace

std::string regular_file_problem(const std::string& path) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);
  const std::string q = '\'' + path + '\'';
  // A file that exists but cannot be reached (a directory on the way without search permission)
  // is not "no such file": say the cause.
  if (ec && ec != std::errc::no_such_file_or_directory)
    return q + ": cannot open it: " + ec.message();
  if (ec || st.type() == fs::file_type::not_found) return q + ": no such file";
  switch (st.type()) {
    case fs::file_type::regular:
      return {};
    case fs::file_type::directory:
      return q + " is a directory, not a file";
    case fs::file_type::fifo:
      // Not "or - for standard input": most readers (lessons, settings, kernels) take no "-".
      return q + " is a FIFO (named pipe), not a regular file";
    case fs::file_type::character:
    case fs::file_type::block:
      return q + " is a device, not a regular file";
    case fs::file_type::socket:
      return q + " is a socket, not a regular file";
    default:
      return q + " is not a regular file";
  }
}

std::string kernel_view_problem(const std::string& path) {
  struct statfs where {};
  if (::statfs(path.c_str(), &where) != 0) return {};
  if (const char* kind = kernel_file_system(static_cast<int64_t>(where.f_type)))
    return '\'' + path + "' is in the kernel's " + kind +
           " file system, which holds the kernel's views, not files on a disk";
  return {};
}

TextRead read_text_file(const std::string& path, int64_t max_bytes) {
  TextRead r;
  if (std::string p = regular_file_problem(path); !p.empty()) {
    r.error = std::move(p);
    return r;
  }
  // Opened without blocking and checked again on the open file: a FIFO swapped in after the
  // check above cannot make the read wait forever.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) {
    r.error = '\'' + path + "': cannot open it: " + std::strerror(errno);
    return r;
  }
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    r.error = '\'' + path + "' is not a regular file";
    return r;
  }
  if (st.st_size > max_bytes) {
    ::close(fd);
    r.error = too_big('\'' + path + "' (" + size_text(st.st_size) + ")", max_bytes);
    return r;
  }
  std::string text;
  text.reserve(static_cast<size_t>(st.st_size));
  std::vector<char> buf(kReadChunk);  // on the heap: a 64 KiB stack (ulimit -s 64) must do
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      r.error = '\'' + path + "': read error: " + std::strerror(errno);
      ::close(fd);
      return r;
    }
    if (n == 0) break;
    if (static_cast<int64_t>(text.size()) + n > max_bytes) {  // the file grew while read
      ::close(fd);
      r.error = too_big('\'' + path + '\'', max_bytes);
      return r;
    }
    text.append(buf.data(), static_cast<size_t>(n));
  }
  ::close(fd);
  r.text = std::move(text);
  return r;
}

std::string standard_input_problem() {
  struct stat st {};
  if (::fstat(0, &st) != 0)
    return errno == EBADF ? "standard input is closed: give a file, or pipe the input in"
                          : std::string("standard input cannot be read: ") + std::strerror(errno);
  if (S_ISDIR(st.st_mode)) return "standard input is a directory, not a file";
  return {};
}

TextRead read_text_stream(std::istream& in, int64_t max_bytes, const std::string& what) {
  TextRead r;
  std::string text;
  std::vector<char> buf(kReadChunk);  // on the heap, as in read_text_file()
  while (in) {
    in.read(buf.data(), static_cast<std::streamsize>(buf.size()));
    const std::streamsize got = in.gcount();
    if (static_cast<int64_t>(text.size()) + got > max_bytes) {  // the file grew, or a stream
      r.error = too_big(what, max_bytes);
      return r;
    }
    text.append(buf.data(), static_cast<size_t>(got));
  }
  if (in.bad()) {
    r.error = what + ": read error";
    return r;
  }
  r.text = std::move(text);
  return r;
}

std::string shared_link_problem(const std::string& path) {
  struct stat link {};
  if (::lstat(path.c_str(), &link) != 0 || !S_ISLNK(link.st_mode)) return {};
  // The link's own directory: "dir/name" -> "dir", "name" -> ".".
  const std::string::size_type slash = path.find_last_of('/');
  const std::string dir = slash == std::string::npos ? "."
                          : slash == 0               ? "/"
                                                     : path.substr(0, slash);
  struct stat d {};
  if (::stat(dir.c_str(), &d) != 0) return {};  // output_problem() says what is wrong with it
  const bool shared = (d.st_mode & S_ISVTX) && (d.st_mode & S_IWOTH);
  if (!shared || link.st_uid == ::geteuid() || link.st_uid == d.st_uid) return {};
  return '\'' + path + "' is a symbolic link that another user owns, in a shared directory " +
         "(sticky and writable by everyone, like /tmp): bankviz does not write through it; " +
         "choose another name";
}

std::string output_problem(const std::string& path, bool force) {
  namespace fs = std::filesystem;
  if (path.empty()) return "no output file given";
  const std::string q = '\'' + path + '\'';
  std::error_code ec;
  // A link that points nowhere still exists: it is replaced only with force.
  if (fs::is_symlink(fs::symlink_status(path, ec)) && !fs::exists(path, ec) && !force)
    return q + " exists (a link to nothing); pass --force to overwrite it";
  if (std::string why = shared_link_problem(path); !why.empty()) return why;
  const fs::file_status st = fs::status(path, ec);
  if (!ec && st.type() != fs::file_type::not_found) {
    if (st.type() == fs::file_type::directory) return q + " is a directory";
    if (st.type() != fs::file_type::regular)
      return q + " exists and is not a regular file (a device, FIFO or socket); bankviz writes " +
             "only regular files";
    if (!force) return q + " exists; pass --force to overwrite it";
  }
  const fs::path dir = fs::path(path).parent_path();
  if (!dir.empty() && !fs::is_directory(dir, ec))
    return "cannot write " + q + ": directory '" + dir.string() + "' does not exist";
  // /proc/self/mem, /sys/...: stat() calls them regular files, but no file can be made there.
  struct statfs where {};
  const std::string folder = dir.empty() ? "." : dir.string();
  if (::statfs(folder.c_str(), &where) == 0)
    if (const char* kind = kernel_file_system(static_cast<int64_t>(where.f_type)))
      return "cannot write " + q + ": '" + folder + "' is in the kernel's " + kind +
             " file system, which holds the kernel's views, not regular files: bankviz writes " +
             "only regular files (choose a folder on a disk)";
  return {};
}

std::string extension_problem(const std::string& path, std::string_view format) {
  // The formats a user may mean by a name's extension: pictures, documents, data.
  static constexpr std::string_view kKnown[] = {
      "svg", "svgz", "png", "apng", "jpg",  "jpeg", "gif",  "webp",  "avif", "bmp",
      "tif", "tiff", "ico", "pdf",  "eps",  "ps",   "json", "html",  "htm",  "txt",
      "csv", "md",   "xml", "mp4",  "webm", "mkv",  "cu",   "cubin", "ptx"};
  const std::string::size_type slash = path.find_last_of('/');
  const std::string name = slash == std::string::npos ? path : path.substr(slash + 1);
  const std::string::size_type dot = name.find_last_of('.');
  if (dot == std::string::npos || dot == 0) return {};  // no extension, or a hidden name only
  std::string ext = name.substr(dot + 1);
  for (char& ch : ext)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  if (ext == format || std::find(std::begin(kKnown), std::end(kKnown), ext) == std::end(kKnown))
    return {};
  std::string upper(format);
  for (char& ch : upper)
    if (ch >= 'a' && ch <= 'z') ch = static_cast<char>(ch - 'a' + 'A');
  return '\'' + path + "' ends in ." + name.substr(dot + 1) + ", but the file would be " + upper +
         ": name it '" + path.substr(0, path.size() - (name.size() - dot)) + "." +
         std::string(format) + "'";
}

std::string write_file_atomic(const std::string& path, std::string_view bytes, bool force) {
  if (std::string why = output_problem(path, force); !why.empty()) return why;
  const std::string q = '\'' + path + '\'';
  auto failed = [&](int err) {
    if (err == EFBIG)  // SIGXFSZ is ignored (ignore_file_size_signal): the write says so instead
      return "cannot write " + q + ": " + std::strerror(err) + " (the file-size limit, ulimit -f)";
    return "cannot write " + q + ": " + std::strerror(err);
  };
  namespace fs = std::filesystem;
  std::error_code ec;
  // Through a symbolic link (one output_problem() allowed), the file it names is replaced and the
  // link kept.
  fs::path target(path);
  if (fs::is_symlink(target, ec)) {
    fs::path resolved = fs::canonical(target, ec);
    if (!ec) target = resolved;
  }
  // Everything below happens inside the target's directory, opened once: the temporary file is
  // created there exclusively (never an existing file, never through a link) and renamed over the
  // name in the same directory, so a link planted meanwhile is replaced, not followed.
  const std::string dir_name = target.has_parent_path() ? target.parent_path().string() : ".";
  const std::string name = target.filename().string();
  const int dir = ::open(dir_name.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return failed(errno);
  struct CloseDir {
    int fd;
    ~CloseDir() { ::close(fd); }
  } close_dir{dir};
  // The temporary file: beside the target (rename is atomic only within a file system), hidden.
  // Each name is remembered before the file is made, so a signal that ends the program at any
  // moment until it is renamed or removed removes it too (a signal between the two, on a machine
  // that stops this thread there, once found the file made and not yet remembered). The names
  // hold this process's id: only a temporary file of an earlier bankviz could be there already.
  struct Remembered {
    int slot = -1;
    ~Remembered() { forget_temporary(slot); }
  } remembered;
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    // Short whatever the target's name: a name of 255 bytes, the longest a folder holds, is
    // written as any other.
    tmp = ".bankviz-" + std::to_string(::getpid()) + "-" + std::to_string(attempt) + ".tmp";
    remembered.slot = remember_temporary(dir, tmp);
    fd = ::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
      const int err = errno;
      forget_temporary(remembered.slot);
      remembered.slot = -1;
      if (err != EEXIST)
        return "cannot write " + q + ": cannot create a new file in its folder '" + dir_name +
               "': " + std::strerror(err) + " (bankviz writes a new file there and renames it " +
               "over the name)";
    }
  }
  if (fd < 0) return "cannot write " + q + ": no free temporary name beside it";
  auto abandon = [&](int err) {
    ::close(fd);
    ::unlinkat(dir, tmp.c_str(), 0);
    return failed(err);
  };
  const char* p = bytes.data();
  size_t left = bytes.size();
  while (left > 0) {
    const ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      return abandon(errno);
    }
    p += n;
    left -= static_cast<size_t>(n);
  }
  // An existing file keeps its permission bits.
  struct stat old {};
  if (::fstatat(dir, name.c_str(), &old, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(old.st_mode) &&
      ::fchmod(fd, old.st_mode & 07777) != 0)
    return abandon(errno);
  if (::fsync(fd) != 0 && errno != EINVAL && errno != EROFS) return abandon(errno);
  if (::close(fd) != 0) {
    const int err = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    return failed(err);
  }
  // Without force the name must still be free when the file takes it: two programs writing one
  // new name at once never replace each other's file (the second is told, its file removed).
  if (!force) {
    const std::string taken = "cannot write " + q +
                              ": it exists now, made by another program while this one wrote "
                              "it; it is left as it is (--force replaces it)";
#ifdef RENAME_NOREPLACE
    if (::renameat2(dir, tmp.c_str(), dir, name.c_str(), RENAME_NOREPLACE) == 0) return {};
    int err = errno;
#else
    int err = ENOSYS;  // the browser build's libc (musl) has no renameat2: the link below
#endif
    if (err == EINVAL || err == ENOSYS || err == ENOTSUP) {
      // A file system without RENAME_NOREPLACE: a hard link fails on an existing name too.
      if (::linkat(dir, tmp.c_str(), dir, name.c_str(), 0) == 0) {
        ::unlinkat(dir, tmp.c_str(), 0);
        return {};
      }
      err = errno;
    }
#ifdef __EMSCRIPTEN__
    // The browser's in-memory file system has neither (linkat: EMLINK). Only this page writes
    // there, and no two of its threads write one name: the name checked free, then the rename.
    if (err == EMLINK || err == EPERM || err == ENOSYS || err == ENOTSUP) {
      struct stat st {};
      if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) == 0) {
        err = EEXIST;
      } else if (::renameat(dir, tmp.c_str(), dir, name.c_str()) == 0) {
        return {};
      } else {
        err = errno;
      }
    }
#endif
    ::unlinkat(dir, tmp.c_str(), 0);
    return err == EEXIST ? taken : failed(err);
  }
  if (::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) {
    const int err = errno;
    ::unlinkat(dir, tmp.c_str(), 0);
    return failed(err);
  }
  return {};
}

void ignore_file_size_signal() {
  std::signal(SIGXFSZ, SIG_IGN);
}

int kill_process_group_on_signal(int group) {
  if (group <= 0) return -1;
  const int i = claim_slot();
  if (i >= 0) g_temp[i].group.store(group);
  return i;
}

int remove_directory_on_signal(const std::string& path) {
  const std::filesystem::path p(path);
  const std::string folder = p.has_parent_path() ? p.parent_path().string() : ".";
  const int dir = ::open(folder.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dir < 0) return -1;
  const int slot = remember_temporary(dir, p.filename().string(), true);
  if (slot < 0) ::close(dir);
  return slot;
}

void forget_on_signal(int slot) {
  forget_temporary(slot);
}

void remove_temporary_files_on_signal() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) != 0 || old.sa_handler != SIG_DFL) continue;
    struct sigaction sa {};
    sa.sa_handler = remove_temporaries_and_end;
    sigemptyset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    ::sigaction(sig, &sa, nullptr);
  }
}

}  // namespace bankviz
