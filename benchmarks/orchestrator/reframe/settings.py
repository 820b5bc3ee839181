# One local system: the local scheduler and launcher, the builtin environment, and ReFrame's
# file perflog on (a performance record per test, as scalestudy records every run).
site_configuration = {
    'systems': [{
        'name': 'local',
        'descr': 'this machine',
        'hostnames': ['.*'],
        'partitions': [{
            'name': 'default',
            'scheduler': 'local',
            'launcher': 'local',
            'environs': ['builtin'],
        }],
    }],
    'environments': [{'name': 'builtin', 'cc': 'cc', 'cxx': '', 'ftn': ''}],
    'logging': [{
        'handlers': [{'type': 'stream', 'name': 'stdout', 'level': 'info',
                      'format': '%(message)s'}],
        'handlers_perflog': [{
            'type': 'filelog',
            'prefix': '%(check_system)s/%(check_partition)s',
            'level': 'info',
            'format': '%(check_job_completion_time)s|%(check_name)s|%(check_perfvalues)s',
            'append': True,
        }],
    }],
}
