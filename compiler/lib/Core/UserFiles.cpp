//===- UserFiles.cpp - Files a user names, and files beside them ----------===//
//
// Part of phasec.
//
//===----------------------------------------------------------------------===//

#include "phasec/Core/UserFiles.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

using namespace phasec;

std::unique_ptr<llvm::MemoryBuffer>
phasec::readBoundedFile(llvm::StringRef path, uint64_t maxBytes,
                        std::string &error, llvm::StringRef what) {
  const bool isStdin = path == "-";
  std::string name = isStdin ? "<stdin>" : path.str();
  // "WHAT 'PATH'", or "'PATH'".
  const std::string quoted =
      (what.empty() ? "" : what.str() + " ") + "'" + name + "'";
  int fd = STDIN_FILENO;
  if (!isStdin) {
    // O_NONBLOCK: opening a FIFO without a writer must not wait for one
    // (it is refused below, as is every file that is not regular).
    fd = ::open(name.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      error = "cannot read " + quoted + ": " + std::strerror(errno);
      return nullptr;
    }
    struct stat st;
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      error = quoted + " is not a regular file";
      return nullptr;
    }
    // A regular file reads the same with or without O_NONBLOCK; clear it
    // anyway so that no read returns EAGAIN.
    int flags = ::fcntl(fd, F_GETFL);
    if (flags >= 0)
      (void)::fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
  }
  std::string data;
  char chunk[1 << 16];
  for (;;) {
    ssize_t n = ::read(fd, chunk, sizeof chunk);
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0) {
      error = "cannot read " + quoted + ": " + std::strerror(errno);
      data.clear();
      break;
    }
    if (n == 0)
      break;
    if (data.size() + static_cast<uint64_t>(n) > maxBytes) {
      error = quoted + " is larger than the limit of " +
              std::to_string(maxBytes) + " bytes";
      data.clear();
      break;
    }
    data.append(chunk, static_cast<size_t>(n));
  }
  if (!isStdin)
    ::close(fd);
  if (!error.empty())
    return nullptr;
  return llvm::MemoryBuffer::getMemBufferCopy(data, name);
}

std::string phasec::escapeForTerminal(llvm::StringRef text) {
  std::string out;
  out.reserve(text.size());
  for (unsigned char c : text) {
    if ((c >= 0x20 && c < 0x7f) || c == '\n' || c == '\t') {
      out += static_cast<char>(c);
      continue;
    }
    const char *hex = "0123456789abcdef";
    out += "\\x";
    out += hex[c >> 4];
    out += hex[c & 15];
  }
  return out;
}

std::error_code phasec::writeFileReplacing(
    llvm::StringRef path, llvm::function_ref<void(llvm::raw_ostream &)> write) {
  llvm::SmallString<256> temp;
  int fd = -1;
  if (std::error_code ec =
          llvm::sys::fs::createUniqueFile(path + ".tmp-%%%%%%%%", fd, temp))
    return ec;
  llvm::raw_fd_ostream os(fd, /*shouldClose=*/true);
  write(os);
  os.close();
  std::error_code ec;
  if (os.has_error()) {
    ec = os.error();
    os.clear_error();
  } else {
    ec = llvm::sys::fs::rename(temp, path);
  }
  if (ec)
    (void)llvm::sys::fs::remove(temp);
  return ec;
}

std::string phasec::createOutputDirectory(llvm::StringRef prefix,
                                          llvm::raw_ostream &diag) {
  llvm::SmallString<256> dir;
  if (std::error_code ec = llvm::sys::fs::createUniqueDirectory(prefix, dir)) {
    diag << "error: cannot create a temporary output directory: "
         << ec.message() << "\n";
    return "";
  }
  diag << "note: no -o given: writing to " << dir << "\n";
  return std::string(dir);
}

llvm::ErrorOr<std::string> phasec::findPython3(llvm::StringRef configured) {
  if (llvm::sys::fs::can_execute(configured))
    return configured.str();
  return llvm::sys::findProgramByName("python3");
}
