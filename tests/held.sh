# Sourced by the tests that signal a running fiber-calibrate at a point they see from
# outside the process: the size of a file it writes (its checkpoint, whose header and
# records are each written at once and synced).

# The state letter of process $1 from /proc: T when stopped, Z when ended, empty when gone.
proc_state() { sed -n 's/^[0-9]* (.*) \([A-Za-z]\).*/\1/p' "/proc/$1/stat" 2>/dev/null; }

# Waits until file $2 holds more than $3 bytes: status 0 then, 1 when process $1 ended
# first.  No time limit: a run that never writes there ends by itself, and the wait
# with it.
wait_size() {
  while :; do
    [ -f "$2" ] && [ "$(wc -c <"$2")" -gt "$3" ] && return 0
    case $(proc_state "$1") in
      Z | '') return 1 ;;
    esac
    sleep 0.01
  done
}

# Waits until process $1's new checkpoint $2 holds its header and at least one record
# after it (each written at once): status 0 then, 1 when the process ended first.
wait_record() {
  wait_size "$1" "$2" 0 || return 1
  wait_size "$1" "$2" "$(wc -c <"$2")"
}
