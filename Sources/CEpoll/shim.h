#ifndef ISSUER_CEPOLL_SHIM_H
#define ISSUER_CEPOLL_SHIM_H
/* Linux's epoll(7) and eventfd(2), which Swift's Glibc module does not export: the database
   pool's answer poller waits on many libpq sockets with them (Sources/Postgres/AnswerPoller.swift). */
#include <sys/epoll.h>
#include <sys/eventfd.h>
#endif
