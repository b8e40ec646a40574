#!/usr/bin/env bash
# Runs an Open MPI launcher (mpirun, oshrun) with a session directory tree
# of its own. Open MPI 4.1 puts every job's session directory under one
# per-user directory in $TMPDIR and removes that directory when a job ends
# and finds it empty; a job starting at that moment fails with "A call to
# mkdir was unable to create the desired directory" or "orte_session_dir
# failed". lit runs two launchers at a time, so each gets its own base, in
# the directory lit.cfg.py makes for the run (short: the tree holds Unix
# sockets) and removes at its end. `exec`, so that a timeout's kill reaches
# the launcher itself.
set -u
base=$(mktemp -d "${PHASEC_OMPI_SESSIONS:-${TMPDIR:-/tmp}}/s.XXXXXX") || exit 1
OMPI_MCA_orte_tmpdir_base=$base exec "$@"
