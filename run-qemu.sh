#!/bin/bash
# run-qemu.sh: boot the kernel in QEMU with the harness's initramfs and run
# one guest script.  The entry point users type; the harness itself (this
# runner, the initramfs, the guest's /init and library, fsop, the
# selftest) lives in tests/harness/.  See ./run-qemu.sh --help.
exec "$(dirname "${BASH_SOURCE[0]}")/tests/harness/run-qemu.sh" "$@"
