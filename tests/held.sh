# Sourced by the tests that signal a fiber-calibrate held by FL_CALIBRATE_PAUSE
# (fiber-calibrate(1), ENVIRONMENT).

# The state letter of process $1 from /proc: T when stopped, Z when ended, empty when gone.
proc_state() { sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null; }

# Waits until process $1 has stopped itself or ended: status 0 when it is stopped.  No
# time limit: a run the hook does not stop ends by itself, and the wait with it.
wait_stopped() {
  while :; do
    case $(proc_state "$1") in
      T | t) return 0 ;;
      Z | '') return 1 ;;
    esac
    sleep 0.05
  done
}
