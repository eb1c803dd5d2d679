from keras_seq.zoo.cli import main

main()
