"""Every estimator, interval and test a number in agent-assay rests on, and nothing else.

No view, control or comparison computes a statistic of its own; they call these
modules, so one metric of one run has one figure and one interval wherever it is
printed (a test greps for estimator code outside this package):

* `crashes`: which repetitions are measurements, and what a crashed one adds to a figure;
* `passrates`: pass^k and pass@k, the unbiased estimators over n repetitions;
* `intervals`: the interval on a metric's mean over items;
* `paired`: the difference between two runs on the same items, its interval and test;
* `power`: how many items and repetitions a comparison needs.
"""
