/* SPDX-License-Identifier: MIT */
/* tally exporter: runs the tally-exporter daemon installed beside tally (tools/exporter/). Takes its own
 * argv and returns the process's exit status. */
#ifndef TALLY_TOOLS_EXPORTER_LAUNCH_H
#define TALLY_TOOLS_EXPORTER_LAUNCH_H

int command_exporter(int argc, char **argv);

#endif
