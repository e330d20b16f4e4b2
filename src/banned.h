/* SPDX-License-Identifier: MIT */
/*
 * Functions engpass does not use, made into compile errors (after git's
 * banned.h). This header is force-included before every source file of ours
 * (-include in meson.build). It first includes the system headers that
 * declare the banned names, so their declarations are seen before the
 * poison, then poisons the names: any later use in our code is an error.
 *   strcpy, strcat, sprintf, vsprintf: unbounded writes; use snprintf.
 *   strtok: hidden static state; use strtok_r or strsep.
 *   localtime, gmtime, ctime, asctime: static buffers; use the _r forms.
 */
#ifndef ENGPASS_BANNED_H
#define ENGPASS_BANNED_H

#include <stdio.h>
#include <string.h>
#include <time.h>

#pragma GCC poison strcpy strcat sprintf vsprintf strtok localtime gmtime ctime asctime

#endif
