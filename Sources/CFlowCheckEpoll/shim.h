// epoll and eventfd, which the Swift toolchain's Glibc module does not export: the Linux event
// loop of FlowCheckFakeServer (EventLoop.swift). Nothing on other platforms.
#ifdef __linux__
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif

#ifdef __linux__
// accept4 is a GNU extension, hidden unless _GNU_SOURCE was defined before the first system
// header; declared here as the C library defines it.
struct sockaddr;
extern int accept4(int fd, struct sockaddr *address, unsigned int *length, int flags);
#endif
