/* The relinkboot release: `linkkit --version`, the install and image tools
 * (read at install time) and the Debian package (mk/install.mk) all take
 * it from here, so they cannot disagree. */
#ifndef RELINKBOOT_VERSION_H
#define RELINKBOOT_VERSION_H

#define RELINKBOOT_VERSION "0.1.0"

#endif
