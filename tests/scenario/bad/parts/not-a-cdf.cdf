# Not a flow-size CDF: the percents go down.
0 0
1000 60
2000 40
