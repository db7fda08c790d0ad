"""The ground floor of the GUI, which every view may use: the session (the current config, the run selection and
every background job), the bridge that drains the jobs' messages off the GUI thread, following a run store other
processes write, the one job binding, the wording of messages and the theme. It imports no view."""
