# ReFrame's side of the orchestrator comparison: the same 1,000 runs as printing-1000.yaml
# (a 10 x 10 x 10 parameter space of a program that only prints a figure), each with a
# sanity pattern and a performance function on that figure, as a ReFrame user writes them.
import reframe as rfm
import reframe.utility.sanity as sn


@rfm.simple_test
class printing_1000(rfm.RunOnlyRegressionTest):
    a = parameter(range(1, 11))
    b = parameter(range(1, 11))
    c = parameter(range(1, 11))
    valid_systems = ['*']
    valid_prog_environs = ['*']
    executable = '/bin/echo'
    executable_opts = ["'throughput 1000 img/s'"]

    @sanity_function
    def printed_throughput(self):
        return sn.assert_found(r'throughput \d+ img/s', self.stdout)

    @performance_function('img/s')
    def throughput(self):
        return sn.extractsingle(r'throughput (\d+) img/s', self.stdout, 1, float)
